"""mypy checks all of attnbook/ and autograder/grader/ with the settings in pyproject.toml.

Not marked slow: it is part of the fast set (`make test-fast`), beside the ruff tests in
test_package.py. The first run parses torch's stubs (minutes); later ones reuse .mypy_cache.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (it comes with the dev extra: pip install -e '.[dev]')",
)


def run_mypy(*args: str) -> subprocess.CompletedProcess:
    """mypy with the project's [tool.mypy] settings, run from the repository root (the
    first run parses torch's stubs and takes minutes; later ones reuse .mypy_cache)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=800,
    )  # fmt: skip


def test_the_settings_cover_both_trees_and_exempt_no_other_module():
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert sorted(settings["files"]) == ["attnbook", "autograder/grader"]
    assert settings["check_untyped_defs"] is True
    assert settings["warn_unused_ignores"] is True
    for override in settings.get("overrides", []):
        modules = override["module"]
        modules = [modules] if isinstance(modules, str) else modules
        assert not override.get("ignore_errors"), f"errors ignored in {modules}"
        assert override.get("follow_imports") not in ("silent", "skip"), modules
        others = set(override) - {"module", "ignore_missing_imports", "ignore_errors"}
        assert not others, f"an override that loosens more: {sorted(others)}"
        if override.get("ignore_missing_imports"):
            assert not any(m.startswith(("attnbook", "grader")) for m in modules), modules


def test_attnbook_and_the_grader_type_check():
    result = run_mypy()
    assert result.returncode == 0, f"mypy found errors:\n{result.stdout}{result.stderr}"
    assert "Success: no issues found" in result.stdout, result.stdout


def test_the_settings_report_a_type_error(tmp_path):
    """The check can fail: the same settings reject a function called with the wrong type."""
    bad = tmp_path / "bad.py"
    bad.write_text("def twice(n: int) -> int:\n    return 2 * n\n\n\ntwice('a')\n")
    result = run_mypy("--no-incremental", str(bad))
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'incompatible type "str"; expected "int"' in result.stdout, result.stdout

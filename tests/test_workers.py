"""`make test` on two pytest processes (tests/conftest.py, the Makefile): the files that share
a session's setup run on one worker, whole files stay together, and the benchmark of the
suite runs it the way `make test` does."""

from __future__ import annotations

import subprocess

from conftest import ROOT, SHARED_SETUPS, script_module, worker_group


def test_files_that_share_a_setup_share_a_worker_and_files_stay_whole():
    assert worker_group("tests/test_kit.py") == worker_group("tests/browser/test_kit_lab.py")
    assert worker_group("tests/test_release.py") == worker_group("tests/test_workspace.py")
    group = {worker_group(f"tests/{name}") for name in SHARED_SETUPS["the catalogue's runs"]}
    assert group == {"the catalogue's runs"}
    assert worker_group("tests/test_ta_day.py") == "test_ta_day.py"  # a file is its own group
    files = [name for names in SHARED_SETUPS.values() for name in names]
    assert all((ROOT / "tests" / name).is_file() for name in files), files


def test_make_test_and_the_suite_benchmark_run_the_same_workers():
    shown = subprocess.run(
        ["make", "-n", "test", "PYTEST_ARGS=-q"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    bench = script_module("benchmarks/bench_tests.py", "bench")
    assert " ".join(["-m pytest", *bench.worker_args(2), "-q"]) in shown, shown
    one = subprocess.run(
        ["make", "-n", "test", "PYTEST_WORKERS=1"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert "-m pytest" in one and " -n " not in one and bench.worker_args(1) == []

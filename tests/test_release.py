"""The release pipeline: notebooks/ is exactly what scripts/release.py makes from solutions/."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, read


def test_notebooks_folder_is_not_stale():
    result = subprocess.run([sys.executable, "scripts/release.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_release_detects_a_stale_notebook(tmp_path):
    """The staleness check can fail: a release from edited solutions differs."""
    out = tmp_path / "release"
    subprocess.run([sys.executable, "scripts/release.py", "--out", str(out)], cwd=ROOT,
                   check=True, capture_output=True)
    released = sorted(out.glob("*/*.ipynb"))
    assert released, "the release wrote no notebooks"
    for path in released:
        stored = ROOT / "notebooks" / path.parent.name / path.name
        assert path.read_bytes() == stored.read_bytes()
    nb = read(released[0])
    nb.cells[0].source += "\nedited"
    import nbformat

    nbformat.write(nb, released[0])
    assert released[0].read_bytes() != (ROOT / "notebooks" / released[0].parent.name
                                        / released[0].name).read_bytes()

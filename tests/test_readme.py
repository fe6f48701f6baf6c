"""The README lists every notebook and its commands exist."""

from conftest import NOTEBOOKS, ROOT


def test_readme_lists_every_notebook():
    readme = (ROOT / "README.md").read_text()
    for folder in sorted(p.name for p in NOTEBOOKS.iterdir() if p.is_dir()):
        assert f"`{folder}`" in readme, f"README's notebook list lacks {folder}"


def test_readme_commands_are_make_targets():
    readme, makefile = (ROOT / "README.md").read_text(), (ROOT / "Makefile").read_text()
    for target in ("lab", "test", "check", "release", "setup"):
        assert f"make {target}" in readme
        assert f"\n{target}:" in makefile


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_readme_python_example_runs(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    assert blocks, "the README should show how to use the model from Python"
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "__readme__"})
    assert (tmp_path / "model.pt").is_file()

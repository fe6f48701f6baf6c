"""The README lists every notebook and its commands exist."""

import json
import re

from conftest import NOTEBOOKS, ROOT


def test_readme_lists_every_notebook():
    readme = (ROOT / "README.md").read_text()
    for folder in sorted(p.name for p in NOTEBOOKS.iterdir() if p.is_dir()):
        assert f"`{folder}`" in readme, f"README's notebook list lacks {folder}"


def test_readme_times_are_the_notebooks_own_estimates():
    """The notebook table's time column and the total are each notebook's "**Time.** About N
    minutes", so neither can drift from the notebooks."""
    readme = (ROOT / "README.md").read_text()
    total = 0
    for folder in sorted(p for p in NOTEBOOKS.iterdir() if p.is_dir()):
        first = json.loads((folder / f"{folder.name}.ipynb").read_text())["cells"][:3]
        text = "".join("".join(c["source"]) for c in first)
        minutes = int(re.search(r"\*\*Time\.\*\*\s+About\s+(\d+)\s+minutes", text)[1])
        assert f"| `{folder.name}` | {minutes} min |" in readme, folder.name
        total += minutes
    assert f"about {total // 60} h {total % 60:02d} min in all" in readme


def test_readme_commands_are_make_targets():
    readme, makefile = (ROOT / "README.md").read_text(), (ROOT / "Makefile").read_text()
    for target in (
        "lab",
        "test",
        "check",
        "progress",
        "reset",
        "release",
        "setup",
        "clean-grading",
    ):
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


# -- figures that depend on the corpus, the shipped checkpoint and the ablation ----------------
def _shipped_metrics() -> dict:
    import torch

    payload = torch.load(ROOT / "assets" / "checkpoints" / "email_cpu.pt", weights_only=True)
    return payload["extra"]["metrics"]


def _number(pattern: str, text: str) -> float:
    import re

    found = re.search(pattern, text)
    assert found, f"no match for {pattern!r}"
    return float(found.group(1))


def test_readme_floor_and_checkpoint_gap_match_the_shipped_checkpoint():
    from attnbook.lm.corpus import DEFAULT_GRAMMAR

    readme, metrics = (ROOT / "README.md").read_text(), _shipped_metrics()
    floor = _number(r"known exactly \((\d\.\d{3}) nats", readme)
    assert floor == round(metrics["floor"], 3)
    assert floor == round(DEFAULT_GRAMMAR.entropy_per_token(20000, seed=12345)[0], 3), (
        "the checkpoint was trained on another corpus than the package's grammar makes"
    )
    gap = _number(r"email_cpu.pt` \((\d\.\d{3}) nats above the floor", readme)
    assert gap == round(metrics["best_val_loss"] - metrics["floor"], 3)


def test_train_benchmark_records_the_shipped_checkpoint():
    from attnbook.lm.train import read_log

    text = (ROOT / "benchmarks" / "results" / "train_cpu.md").read_text()
    metrics = _shipped_metrics()
    assert _number(r"shipped checkpoint\) \| (\d\.\d{5})", text) == round(
        metrics["best_val_loss"], 5
    )
    assert _number(r"corpus entropy per token [^|]*\| (\d\.\d{5})", text) == round(
        metrics["floor"], 5
    )
    assert _number(r"true grammar on the same validation emails \| (\d\.\d{5})", text) == round(
        metrics["val_floor"], 5
    )
    assert _number(r"best validation loss − corpus entropy\*\* \| \*\*(\d\.\d{4})", text) == round(
        metrics["best_val_loss"] - metrics["floor"], 4
    )
    log = read_log(ROOT / "assets" / "checkpoints" / "email_cpu_log.csv")
    validated = {int(r["step"]): float(r["val_loss"]) for r in log if r["val_loss"]}
    assert (
        min(validated.values()) == metrics["best_val_loss"]
        or abs(min(validated.values()) - metrics["best_val_loss"]) < 1e-6
    )
    steps = [int(s) for s in _row(text, "| step |")]
    losses = [float(v) for v in _row(text, "| val loss |")]
    assert [round(validated[s], 4) for s in steps] == losses


def _row(text: str, start: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(start))
    return [cell.strip() for cell in line.strip("|").split("|")[1:]]


def test_ablation_benchmark_shows_the_stored_table_and_floor():
    from attnbook.experiments.ablation import load_results, results_table

    text = (ROOT / "benchmarks" / "results" / "ablation_cpu.md").read_text()
    results = load_results(ROOT / "assets" / "ablation" / "results.json")
    assert results_table(results) in text, "regenerate the table with results_table(...)"
    assert _number(r"Corpus entropy (\d\.\d{5})", text) == round(results["floor"], 5)
    assert f"seeds {', '.join(map(str, results['config']['seeds']))}" in text

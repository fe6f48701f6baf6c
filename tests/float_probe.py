"""Run in a fresh interpreter by tests/test_kernel_sets.py, under one ATEN_CPU_CAPABILITY
(read by PyTorch when it is imported, hence a process of its own):

    python tests/float_probe.py OUT.json [--threads 1 2] [--notebooks 05_multihead ...]

For each thread count it computes the float-sensitive numbers (transformers' logits on the
tiny checkpoint's stored ids, the package's Qwen3LM and notebook 10's reference decoder on the
same ids) and saves them, and runs the visible checks of the named solution notebooks (their
test cells without the hidden part) on the solution functions. It writes what PyTorch ran
on, the logits' file and each failed check to OUT.json; the test judges.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.DOTALL)


def logits(threads: int) -> dict:
    import torch
    from safetensors.torch import load_file
    from transformers import Qwen3ForCausalLM

    from attnbook.grading import load_reference
    from attnbook.lm.qwen3 import load_hf_checkpoint, load_hf_model, tiny_checkpoint

    torch.set_num_threads(threads)
    ids = load_file(str(tiny_checkpoint() / "expected.safetensors"))["input_ids"]
    config, state = load_hf_checkpoint(tiny_checkpoint())
    decoder = load_reference("10_modern_decoder").Qwen3Decoder(
        **{f: getattr(config, f) for f in config.__dataclass_fields__}
    )
    decoder.load_state_dict(state)
    models = {
        "transformers": Qwen3ForCausalLM.from_pretrained(tiny_checkpoint(), dtype=torch.float32),
        "Qwen3LM": load_hf_model(tiny_checkpoint()),
        "notebook 10's decoder": decoder,
    }
    out = {}
    with torch.no_grad():
        for name, model in models.items():
            result = model.eval()(ids)
            out[name] = getattr(result, "logits", result).contiguous()
    return out


def visible_checks(notebook: str) -> tuple[int, dict[str, str]]:
    """How many visible checks of `notebook` passed (printed their pass line), and
    grade_id -> the error for each that failed."""
    from grader.catalogue import nbgrader_meta, run_graded_cells, solution_notebook

    nb = solution_notebook(notebook)
    for cell in nb.cells:
        meta = nbgrader_meta(cell)
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            cell.source = HIDDEN.sub("", cell.source)
    results = run_graded_cells(nb)
    passed = sum(r.error is None and "\u2713" in r.stdout for r in results.values())
    return passed, {k: repr(r.error)[:2000] for k, r in results.items() if r.error is not None}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--notebooks", nargs="*", default=[])
    args = parser.parse_args(argv)
    import torch
    from safetensors.torch import save_file

    report: dict = {
        "capability": torch.backends.cpu.get_cpu_capability(),
        "logits": {},
        "passed": {},
        "failed": {},
        "seconds": {},
    }
    for threads in args.threads:
        start = time.perf_counter()
        path = args.out.with_name(f"{args.out.stem}_threads{threads}.safetensors")
        save_file(logits(threads), str(path))
        report["logits"][str(threads)] = str(path)
        report["seconds"][f"logits, {threads} thread(s)"] = time.perf_counter() - start
        for notebook in args.notebooks:
            start = time.perf_counter()
            torch.set_num_threads(threads)
            passed, failed = visible_checks(notebook)
            where = f"{threads} thread(s)"
            report["passed"][f"{notebook}, {where}"] = passed
            report["failed"].update({f"{notebook}:{k}, {where}": v for k, v in failed.items()})
            report["seconds"][f"{notebook}, {threads} thread(s)"] = time.perf_counter() - start
    args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

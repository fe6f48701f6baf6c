"""The student kit (`make kit`, scripts/build_kit.py) on the built zip itself: it holds the
release and what runs it, no answer and no grader material; it installs offline into a fresh
virtual environment from the kit alone; there every released notebook runs to its stubs,
loading only the kit's assets and the kit's package, and the self-check works.

The kit is built, unzipped and installed once per session (fixtures in conftest.py,
helpers in kit.py); ATTNBOOK_KIT_ZIP=dist/attnbook-kit-....zip tests a kit already built.
"""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, SOLUTIONS, notebook_names, read
from grader.catalogue import fill_in
from kit import build_kit_module, clean_env, code_of, found_in, kit_python, solution_lines

pytestmark = pytest.mark.slow

NAMES = notebook_names()
KIT = build_kit_module()
TOP_LEVEL = {
    "README.md",
    "install.py",
    "kit.json",
    "notebooks",
    "assets",
    "scripts",
    "wheels",
    "jupyter",
}
GRADING_ENV = {"NBGRADER_EXECUTION": "autograde", "MPLBACKEND": "Agg"}

# -- answers: every non-trivial line of the solution regions (kit.solution_lines) ----------
# Solution lines that the kit holds and a review accepted, each with the reason. Any other
# solution line in the kit fails the test; an entry no longer found must be removed.
ACCEPTED = {
    # the production decoder, sampler and trainer do the work of these exercises (STYLE.md);
    # the grader flags an answer that delegates to them
    "for block in self.blocks:": "attnbook/lm/model.py: decoder",
    "z = logits / temperature  # (..., V)": "attnbook/lm/generation.py: sampler",
    "probs = torch.softmax(z, dim=-1)  # (..., V)": "attnbook/lm/generation.py: sampler",
    "if top_p is not None and top_p < 1.0:": "attnbook/lm/generation.py: sampler",
    "probs = probs / probs.sum(dim=-1, keepdim=True)": "attnbook/lm/generation.py: sampler",
    "if temperature == 0:": "attnbook/lm/generation.py: sampler; a guard any sampler has",
    "total, count = 0.0, 0": "attnbook/demos/nb07.py: evaluation loop",
    "return total / count": "attnbook/demos/nb07.py, data.py: evaluation loop",
    "was_training = model.training": "package evaluation loops: the usual train/eval save",
    "model.train(was_training)": "package evaluation loops: the usual train/eval restore",
    "nll = torch.nn.functional.cross_entropy(": "training_viz.py, checks/nb08.py: the loss",
    # notebook 10: the package's Qwen3LM and ModernBlock (qwen3.py) are the production twins
    # of Qwen3Decoder and Qwen3Block, which the grader flags when an answer delegates to them
    "self.blocks = nn.ModuleList(": "attnbook/lm/model.py, qwen3.py: decoders",
    "self.head.weight = self.embed.weight": "attnbook/lm/model.py, qwen3.py: tied weights",
    "rope = (self.rope_cos[:L], self.rope_sin[:L])  # (L, d_k/2) each": "qwen3.py: decoder",
    "if past is not None:": "qwen3.py: ModernBlock's cache; a guard any cache has",
    "k = torch.cat([past[0], k], dim=2)  # (B, h_kv, T + L, d_k)": "qwen3.py: ModernBlock",
    "v = torch.cat([past[1], v], dim=2)  # (B, h_kv, T + L, d_k)": "qwen3.py: ModernBlock",
    "return u + self.mlp(self.norm2(u)), (k, v)": "qwen3.py: ModernBlock",
    "h, _ = block(h, rope)  # (B, L, d)": "qwen3.py: Qwen3LM",
    "return self.head(self.norm(h))  # (B, L, V)": "qwen3.py: Qwen3LM",
    'scores = scores.masked_fill(~allowed, float("-inf"))': "training_viz.py: attention maps",
    "for i, block in enumerate(model.blocks):": "checks/nb10.py: the decode mistakes' loop",
    # notebook 11: the package's Seq2SeqTransformer and beam_decode (seq2seq.py) are the
    # production twins of its classes and search, which the grader flags when borrowed
    "self.W_K = nn.Linear(d_model, d_model)": "attnbook/lm/seq2seq.py: AttentionLayer",
    "self.W_V = nn.Linear(d_model, d_model)": "attnbook/lm/seq2seq.py: AttentionLayer",
    "return u + self.mlp(self.ln2(u))": "attnbook/lm/seq2seq.py: DecoderLayer",
    "return self.ln_enc(h)": "attnbook/lm/seq2seq.py: Seq2SeqTransformer.encode",
    "return self.head(self.ln_final(h))  # (B, L_t, V)": "attnbook/lm/seq2seq.py: decode",
    "for _ in range(max_len):": "attnbook/lm/seq2seq.py: greedy and beam decoding",
    "rows, tokens = flat // total.shape[1], flat % total.shape[1]": "seq2seq.py: beam_decode",
    # notebook 10's hints that still name a line to write
    "new_cache.append(kv)": "checks/nb10.py: hint",
    # a formula the exercise's docstring states, or a statement any implementation has
    "w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)": "checks/nb02.py: w_i as documented",
    "positions = np.arange(L)": "masks.py, positions.py: position indices",
    "B, h, L, d_k = y.shape": "checks/nb05.py: shape unpacking",
    'if positions == "rope":': "checks/nb06.py: the config's option",
    "for _ in range(max_new_tokens):": "checks/nb08.py: a loop header",
    # lines the kit holds with another comment (the test compares code without comments)
    "self.W_Q = nn.Linear(d_model, d_model)": "attnbook/lm/seq2seq.py: AttentionLayer",
    "self.W_O = nn.Linear(d_model, d_model)": "attnbook/lm/seq2seq.py: AttentionLayer",
    "y = inputs[0].clone()": "demos/nb07.py, demos/nb11.py: the demos' head ablation",
    "return logits.argmax(dim=-1)": "attnbook/lm/generation.py: sampler",
    "ids = torch.cat((ids, new[:, None]), dim=1)": "attnbook/lm/generation.py: generation",
    "return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))": "qwen3.py: SwiGLU",
    "u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))": "qwen3.py",
    "causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()": "qwen3.py: mask",
    "return c + self.mlp(self.ln3(c))": "attnbook/lm/seq2seq.py: DecoderLayer",
    "best, flat = total.flatten().topk(min(beam_size, total.numel()))": "seq2seq.py: beam",
    # the check library's own right answers, which compute its visible cases' expected values
    # (README, "What the kit cannot hide"); the grader flags a call into attnbook.checks
    'elif mode == "mean":': "checks/nb07.py: _hooked_logits, ablate_head's right answer",
    "y[..., cols] = y[..., cols].mean(dim=(0, 1))": "checks/nb07.py: _hooked_logits",
    "return log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)": "checks/nb07.py: the same",
    "T = 0 if cache is None else cache[0][0].shape[2]": "checks/nb10.py: _package_step",
    "h, kv = block(h, rope, None if cache is None else cache[i])": "checks/nb10.py: the same",
    "scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])": "checks/nb11.py: expected",
    "keys = enc_allowed[:, None, None, :]": "checks/nb11.py: cross-attention's expected value",
}


def found_in_kit(kit_dir: Path) -> dict[str, list[str]]:
    return found_in(kit_dir, solution_lines(SOLUTIONS, NAMES))


# -- the zip ---------------------------------------------------------------------------------
def test_kit_is_one_versioned_folder_with_a_manifest(kit_zip, kit_dir):
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    manifest = json.loads((kit_dir / "kit.json").read_text())
    assert re.fullmatch(rf"{re.escape(version)}\+g[0-9a-f]{{7}}(\.dirty)?", manifest["version"])
    assert manifest["commit"].startswith(manifest["version"].split("+g")[1][:7])
    assert kit_zip.name.startswith(f"attnbook-kit-{manifest['version']}-cp")
    assert manifest["requirement"] == f"attnbook[{KIT.KIT_EXTRAS}]=={manifest['version']}"
    assert manifest["notebooks"] == NAMES
    assert manifest["wheels"] == sorted(p.name for p in (kit_dir / "wheels").glob("*.whl"))
    assert {p.name for p in kit_dir.iterdir()} == TOP_LEVEL


def test_kit_holds_the_release_its_assets_and_the_self_check_and_nothing_more(kit_dir):
    files = {p.relative_to(kit_dir).as_posix() for p in kit_dir.rglob("*") if p.is_file()}
    ours = {f for f in files if not f.startswith("wheels/")}
    released = {f"notebooks/{n}/{n}.ipynb" for n in NAMES}
    expected = (
        released
        | set(KIT.KIT_ASSETS)
        | {
            "scripts/check_notebook.py",
            "README.md",
            "install.py",
            "kit.json",
            "jupyter/jupyter_server_config.json",
            "jupyter/nbgrader_config.json",
            "jupyter/labconfig/page_config.json",
        }
    )
    assert ours == expected, f"extra: {ours - expected}; missing: {expected - ours}"
    for name in released | set(KIT.KIT_ASSETS) | {"scripts/check_notebook.py"}:
        assert (kit_dir / name).read_bytes() == (ROOT / name).read_bytes(), name
    grader_parts = {"solutions", "autograder", "grader", "reference", "mistakes", "tests"}
    assert not [f for f in files if grader_parts & set(Path(f).parts)]


def test_student_wheel_is_the_package_without_grader_files(kit_dir):
    wheels = sorted((kit_dir / "wheels").glob("attnbook*.whl"))
    assert len(wheels) == 1, f"one attnbook wheel, no grader wheel: {[w.name for w in wheels]}"
    with zipfile.ZipFile(wheels[0]) as wheel:
        members = set(wheel.namelist())
    package = {p.relative_to(ROOT).as_posix() for p in (ROOT / "attnbook").rglob("*.py")}
    expected = package - {f"attnbook/{name}" for name in KIT.GRADER_ONLY}
    assert {m for m in members if not m.split("/")[0].endswith(".dist-info")} == expected
    assert "attnbook/grading.py" not in members


def test_kit_holds_no_grader_marker(kit_dir):
    assert KIT.marker_findings(kit_dir) == []


def test_kit_holds_no_solution_line_beyond_the_reviewed_ones(kit_dir):
    found = found_in_kit(kit_dir)
    assert len(solution_lines(SOLUTIONS, NAMES)) > 200, "the solution regions were not read"
    accepted = {code_of(line) for line in ACCEPTED}
    unreviewed = {line: files for line, files in found.items() if line not in accepted}
    assert not unreviewed, f"solution lines in the kit: {json.dumps(unreviewed, indent=1)}"
    stale = sorted(accepted - set(found))
    assert not stale, f"no longer in the kit; remove from ACCEPTED: {stale}"


def test_no_concept_answer_is_in_the_kit(kit_dir):
    """A keyed concept answer (`answer_x = "B"` as the solutions set it) is never in the kit,
    reviewed or not: ACCEPTED may not hold one, and one anywhere in the kit fails here."""
    answers = {line for line in solution_lines(SOLUTIONS, NAMES) if _is_concept_answer(line)}
    assert len(answers) > 20, f"the concept answers were not read: {sorted(answers)}"
    assert not answers & set(ACCEPTED), "ACCEPTED may not hold a concept answer"
    found = {line: files for line, files in found_in_kit(kit_dir).items() if line in answers}
    assert not found, f"concept answers in the kit: {json.dumps(found, indent=1)}"


def _is_concept_answer(line: str) -> bool:
    return bool(re.fullmatch(r"answer_\w+ = ['\"][A-Z]['\"]", line))


# -- installed ---------------------------------------------------------------------------------
def kit_run(
    kit: Path, home: Path, *args: str, env: dict | None = None, timeout: int = 900
) -> subprocess.CompletedProcess:
    """A command of the kit's environment, in the kit's folder, as a student's shell runs it."""
    return subprocess.run(
        [str(a) for a in args],
        cwd=kit,
        env={**clean_env(kit, home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_kit_installs_offline_into_a_fresh_venv(kit_installed, kit_home):
    probe = (
        "import importlib.util, json, attnbook, torch, jupyterlab, nbgrader, ipywidgets; "
        "print(json.dumps({'attnbook': attnbook.__file__, 'torch': torch.__version__, "
        "'grader': bool(importlib.util.find_spec('grader')), "
        "'grading': bool(importlib.util.find_spec('attnbook.grading'))}))"
    )
    done = kit_run(kit_installed, kit_home, kit_python(kit_installed), "-c", probe)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert Path(seen["attnbook"]).is_relative_to(kit_installed / ".venv"), seen
    assert seen["torch"].startswith("2.13.0") and not seen["grader"] and not seen["grading"]
    config = (kit_installed / ".venv" / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config


def test_kit_lab_turns_off_the_instructor_extensions(kit_installed, kit_home):
    jupyter = kit_installed / ".venv" / "bin" / "jupyter"
    server = kit_run(kit_installed, kit_home, jupyter, "server", "extension", "list")
    state = {
        m[0]: m[1]
        for m in re.findall(
            r"(nbgrader\.server_extensions\.\w+)\s+\S*?"
            r"(enabled|disabled)",
            server.stdout + server.stderr,
        )
    }
    assert state == {
        "nbgrader.server_extensions.formgrader": "disabled",
        "nbgrader.server_extensions.course_list": "disabled",
        "nbgrader.server_extensions.validate_assignment": "enabled",
        "nbgrader.server_extensions.assignment_list": "enabled",
    }, state
    lab = kit_run(kit_installed, kit_home, jupyter, "labextension", "list")
    disabled = (lab.stdout + lab.stderr).split("Disabled extensions:")[-1]
    for plugin in ("formgrader", "create-assignment", "course-list"):
        assert f"@jupyter/nbgrader:{plugin}" in disabled, lab.stdout + lab.stderr


# -- the notebooks, run in the kit --------------------------------------------------------------
RUNNER = """\
import json, sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

path = Path(sys.argv[1])
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=900, kernel_name="python3", allow_errors=True,
               resources={"metadata": {"path": str(path.parent)}}).execute()
cells = []
for cell in nb.cells:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    graded = meta.get("grade") and not meta.get("solution")
    cells.append({"id": cell.get("id"), "grade_id": meta.get("grade_id") if graded else None,
                  "errors": [[o["ename"], o["evalue"][:300]] for o in cell.get("outputs", [])
                             if o.get("output_type") == "error"]})
print(json.dumps(cells))
"""
# Loaded by every Python process of a run (PYTHONPATH): logs each file opened under the kit's
# assets or from an `attnbook` package folder, so the test sees which assets and which
# attnbook the notebooks' kernels really used.
OPEN_LOG = """\
import os
import sys

_LOG, _KIT = os.environ["KIT_OPEN_LOG"], os.environ["KIT_DIR"]


def _log(event, args):
    if event != "open" or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    path = os.path.abspath(os.fsdecode(args[0]))
    if path != _LOG and (path.startswith(os.path.join(_KIT, "assets"))
                         or f"{os.sep}attnbook{os.sep}" in path):
        with open(_LOG, "a") as log:
            log.write(path + "\\n")


sys.addaudithook(_log)
"""


def _open_logging(folder: Path, kit: Path) -> tuple[Path, dict[str, str]]:
    """(the log, the environment variables) under which a Python run of the kit at `kit`
    logs every asset or attnbook file it opens to the log: OPEN_LOG as `folder`'s
    sitecustomize.py, `folder` on PYTHONPATH."""
    (folder / "sitecustomize.py").write_text(OPEN_LOG)
    log = folder / "opened.txt"
    return log, {"PYTHONPATH": str(folder), "KIT_OPEN_LOG": str(log), "KIT_DIR": str(kit)}


@pytest.fixture(scope="module")
def kit_runs(kit_installed, kit_home, tmp_path_factory) -> dict:
    """Every released notebook of the kit run top to bottom by the kit's Python, on the
    graded budget (as the self-check runs it): name -> cells, and the files opened."""
    scratch = tmp_path_factory.mktemp("kit-runs")
    (scratch / "runner.py").write_text(RUNNER)
    log, log_env = _open_logging(scratch, kit_installed)
    env = {**GRADING_ENV, **log_env}
    runs = {}
    for name in NAMES:
        path = kit_installed / "notebooks" / name / f"{name}.ipynb"
        done = kit_run(
            kit_installed,
            kit_home,
            kit_python(kit_installed),
            scratch / "runner.py",
            path,
            env=env,
            timeout=1200,
        )
        runs[name] = (
            json.loads(done.stdout.strip().splitlines()[-1])
            if done.returncode == 0
            else f"the runner failed: {done.stderr[-3000:]}"
        )
    opened = set(log.read_text().split()) if log.exists() else set()
    return {"cells": runs, "opened": opened}


RUNS_TIMEOUT = pytest.mark.timeout(3600)  # the fixture runs all ten notebooks, loaded CI


@RUNS_TIMEOUT
@pytest.mark.parametrize("name", NAMES)
def test_released_notebook_runs_in_the_kit_up_to_its_stubs(name, kit_runs):
    cells = kit_runs["cells"][name]
    assert not isinstance(cells, str), f"{name}: {cells}"
    others = [(c["id"], e) for c in cells for e in c["errors"] if e[0] != "NotImplementedError"]
    assert not others, f"{name}: cells failed with more than NotImplementedError: {others}"
    graded = [c for c in cells if c["grade_id"]]
    assert graded, f"{name}: no graded cell"
    wrong = {
        c["grade_id"]: c["errors"]
        for c in graded
        if [e[0] for e in c["errors"]] != ["NotImplementedError"]
    }
    assert not wrong, f"{name}: graded cells should stop at a stub: {wrong}"


# Assets the released notebooks load only once an answer is written, or outside grading: the
# stubs stop before them. test_answer_assets_load_in_the_kit shows each one read in the kit.
LOADED_PAST_THE_STUBS = {
    "assets/qwen3_tiny/model.safetensors": "notebook 10 loads it into your Qwen3Decoder",
    "assets/qwen3_tiny/expected.safetensors": "check_qwen3_decoder's logits of transformers",
    "assets/qwen3_tiny/generation_config.json": "transformers' from_pretrained, in notebook "
    "10's comparison cell (skipped while graded)",
}
# What those cells do, on the kit's own package, assets and transformers, offline.
ANSWER_ASSET_PROBE = """\
import torch
from transformers import Qwen3ForCausalLM
from attnbook.checks.nb10 import _tiny
from attnbook.lm.qwen3 import load_hf_model, tiny_checkpoint

config, state, ids, logits = _tiny()
ours = load_hf_model(tiny_checkpoint()).eval()
theirs = Qwen3ForCausalLM.from_pretrained(tiny_checkpoint(), dtype=torch.float32).eval()
with torch.no_grad():
    print(tiny_checkpoint())
    print(float((ours(ids) - logits).abs().max()), float((theirs(ids).logits - logits).abs().max()))
"""


@RUNS_TIMEOUT
def test_notebooks_load_exactly_the_kit_assets_and_the_kit_package(kit_runs, kit_installed):
    opened = {Path(p) for p in kit_runs["opened"]}
    assets = {
        p.relative_to(kit_installed).as_posix()
        for p in opened
        if p.is_relative_to(kit_installed / "assets")
    }
    shipped = set(KIT.KIT_ASSETS)
    assert assets <= shipped, f"loaded, not shipped: {assets - shipped}"
    assert shipped - assets == set(LOADED_PAST_THE_STUBS), (
        f"shipped, never loaded by the stubs: {shipped - assets}; expected exactly "
        f"{sorted(LOADED_PAST_THE_STUBS)}"
    )
    package = {p for p in opened if "attnbook" in p.parts}
    assert package, "no attnbook module was seen loading"
    outside = sorted(str(p) for p in package if not p.is_relative_to(kit_installed / ".venv"))
    assert not outside, f"attnbook read from outside the kit's environment: {outside[:5]}"


def function_points(nb: nbformat.NotebookNode) -> tuple[float, int]:
    """Points of a notebook's graded function checks, and its number of concept checks."""
    graded = [
        c.metadata["nbgrader"]
        for c in nb.cells
        if c.cell_type == "code"
        and c.metadata.get("nbgrader", {}).get("grade")
        and not c.metadata["nbgrader"].get("solution")
    ]
    concepts = [g for g in graded if g["grade_id"].startswith("test_answer_")]
    return sum(g["points"] for g in graded if g not in concepts), len(concepts)


def test_self_check_runs_from_the_kit(kit_installed, kit_home, tmp_path):
    """`python scripts/check_notebook.py 01` with the kit's Python: the stubs fail; the same
    notebook with right answers passes every visible check, concept letters graded later."""
    name, check = NAMES[0], ("scripts/check_notebook.py",)
    points, concepts = function_points(read(NOTEBOOKS / name / f"{name}.ipynb"))
    stubs = kit_run(kit_installed, kit_home, kit_python(kit_installed), *check, name[:2])
    assert stubs.returncode == 1, stubs.stdout + stubs.stderr[-2000:]
    assert f"functions: 0/{points:g} points" in stubs.stdout, stubs.stdout
    assert f"{concepts} not answered" in stubs.stdout, stubs.stdout
    filled = fill_in(
        read(NOTEBOOKS / name / f"{name}.ipynb"), read(SOLUTIONS / name / f"{name}.ipynb")
    )
    mine = tmp_path / "mine.ipynb"
    nbformat.write(filled, mine)
    done = kit_run(kit_installed, kit_home, kit_python(kit_installed), *check, mine)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert f"functions: {points:g}/{points:g} points" in done.stdout, done.stdout
    assert f"{concepts} answered" in done.stdout and "graded later" in done.stdout


def test_answer_assets_load_in_the_kit(kit_installed, kit_home, tmp_path):
    """The assets past the stubs are the ones notebook 10's loader, check and comparison cell
    read, and they work there: the kit's package and its transformers give the logits stored
    with the tiny checkpoint, offline. safetensors reads its files outside Python's `open`
    (no audit event): that the logits agree with expected.safetensors, from the weights of
    model.safetensors in the kit's folder, is what shows those two were read."""
    from kit import offline

    (tmp_path / "probe.py").write_text(ANSWER_ASSET_PROBE)
    log, log_env = _open_logging(tmp_path, kit_installed)
    env = {**clean_env(kit_installed, kit_home), **log_env, "HF_HUB_OFFLINE": "1"}
    command, env = offline([str(kit_python(kit_installed)), str(tmp_path / "probe.py")], env)
    done = subprocess.run(
        command,
        cwd=kit_installed / "notebooks" / "10_modern_decoder",
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    *_, folder, gaps = done.stdout.strip().splitlines()
    assert Path(folder) == kit_installed / "assets" / "qwen3_tiny", folder
    ours, theirs = (float(x) for x in gaps.split())
    assert ours < 1e-4 and theirs < 1e-4, done.stdout
    opened = {
        Path(p).relative_to(kit_installed).as_posix()
        for p in log.read_text().split()
        if Path(p).is_relative_to(kit_installed / "assets")
    }
    python_opens = {a for a in LOADED_PAST_THE_STUBS if not a.endswith(".safetensors")}
    assert python_opens <= opened, opened

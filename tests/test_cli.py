"""The command line `attnbook train|sample|ablate|evaluate`: help, errors, sampling, that a
default run leaves version control untouched, and that --budget-seconds bounds the process."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path

import pytest

from attnbook import cli
from attnbook.lm.corpus import DEFAULT_GRAMMAR
from attnbook.lm.generation import judge_email, sample_emails
from attnbook.lm.tokenizer import WordTokenizer
from attnbook.lm.train import PRESETS, load_trained, train
from attnbook.progress import BudgetBar, honest_eta, process_start

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
EMAIL_LINE = re.compile(r"^\s*(\d+)  (valid|INVALID)\s+(-inf|-?\d+\.\d{3})  (.*)$")


def _env(root: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1"}


# -- help and bad input --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        ([], ["train", "sample", "ablate", "evaluate"]),
        (["train"], ["attnbook train", "--budget-seconds", "--into-assets", "--preset"]),
        (["sample"], ["--checkpoint", "--temperature", "--top-k", "--top-p", "--seed", "--count"]),
        (["ablate"], ["usage: attnbook ablate", "--variant", "--into-assets", "--lengths"]),
        (["evaluate"], ["--checkpoint", "--emails", "--samples"]),
    ],
)
def test_every_verb_has_help(argv, shown, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main([*argv, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    missing = [s for s in shown if s not in out]
    assert not missing, f"`attnbook {' '.join(argv)} --help` lacks {missing}:\n{out}"
    # help is read in a terminal: no reStructuredText markup, and the command as typed
    assert "``" not in out and "python -m attnbook." not in out, out


def test_ablation_bar_says_which_run_of_how_many():
    """`attnbook ablate` trains one run per seed and variant; each bar says "run k of n"."""
    from attnbook.experiments.ablation import AblationConfig, _RunBar
    from attnbook.helptext import plain

    bar = _RunBar("learned", AblationConfig(seed=1), show=True, of=(2, 3))
    assert bar.bar.desc.startswith("run 2 of 3: learned seed 1")
    bar.bar.close()
    typed = {"python -m attnbook.experiments.ablation": "attnbook ablate"}
    assert plain("``a`` and `b` in python -m attnbook.experiments.ablation", typed) == (
        "a and b in attnbook ablate"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sample", "--top-p", "1.5"], "argument --top-p: expected a number in (0, 1], got 1.5"),
        (["sample", "--top-p", "0"], "argument --top-p: expected a number in (0, 1], got 0"),
        (
            ["sample", "--temperature", "-1"],
            "argument --temperature: expected a number >= 0, got -1",
        ),
        (["sample", "--top-k", "two"], "argument --top-k: expected an integer >= 0, got 'two'"),
        (["sample", "--count", "0"], "argument --count: expected an integer >= 1, got 0"),
        (
            ["sample", "--checkpoint", "no/such.pt"],
            "argument --checkpoint: expected a checkpoint file written by `attnbook train`",
        ),
        (["evaluate", "--emails", "-3"], "argument --emails: expected an integer >= 1, got -3"),
        (
            ["train", "--budget-seconds", "0"],
            "argument --budget-seconds: expected a number of seconds > 0, got 0",
        ),
        (
            ["train", "--budget-seconds", "soon"],
            "argument --budget-seconds: expected a number of seconds > 0, got soon",
        ),
        (["ablate", "--variant", "nope"], "argument --variant: invalid choice: 'nope'"),
        (["fly"], "invalid choice: 'fly'"),
    ],
)
def test_bad_input_names_the_argument_what_was_expected_and_what_came(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err
    if "--checkpoint" in argv:
        assert "'no/such.pt', which does not exist" in err


def test_console_script_and_module_entry_point():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, name = scripts["attnbook"].split(":")
    assert (module, name) == ("attnbook.cli", "run") and callable(cli.run)
    done = subprocess.run([PYTHON, "-m", "attnbook", "--help"], cwd=ROOT, env=_env(ROOT),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0 and "sample" in done.stdout, done.stderr


# -- sampling ------------------------------------------------------------------------------
def test_sample_prints_each_email_with_the_grammars_verdict_and_log_prob(capsys):
    cli.main(["sample", "--count", "10", "--temperature", "1.5", "--seed", "0"])
    lines = capsys.readouterr().out.splitlines()
    emails = [EMAIL_LINE.match(line) for line in lines]
    emails = [m for m in emails if m]
    assert [int(m[1]) for m in emails] == list(range(1, 11)), lines
    verdicts = {m[2] for m in emails}
    assert verdicts == {"valid", "INVALID"}, f"temperature 1.5 with seed 0 draws both: {lines}"
    for m in emails:
        words = m[4].split()
        truth = DEFAULT_GRAMMAR.log_prob(words)
        if m[2] == "valid":
            assert float(m[3]) == pytest.approx(truth / (len(words) + 1), abs=6e-4)
        else:
            assert m[3] == "-inf" and (truth == float("-inf") or words[-1] == "...")
    valid = sum(m[2] == "valid" for m in emails)  # the summary counts what was printed
    assert re.search(rf"^{valid} of 10 valid|^{10 * valid}% valid", lines[-1], re.M), lines[-1]


def test_sample_is_seeded_and_the_knobs_matter(capsys):
    def drawn(*argv):
        cli.main(["sample", "--count", "6", "--json", *argv])
        return capsys.readouterr().out

    assert drawn("--seed", "1") == drawn("--seed", "1")
    assert drawn("--seed", "1") != drawn("--seed", "2")
    greedy = drawn("--temperature", "0", "--seed", "5")
    assert len(set(greedy.splitlines())) == 1, "temperature 0: the same email every time"
    assert drawn("--top-k", "1", "--seed", "7") == greedy, "top-k 1 is greedy too"


def test_sample_from_a_given_checkpoint(tmp_path, capsys):
    config = dataclasses.replace(PRESETS["tiny"], out=str(tmp_path), steps=4, progress=False,
                                 num_threads=1, device="cpu")  # fmt: skip
    train(config)
    cli.main(["sample", "--checkpoint", str(tmp_path / "best.pt"), "--count", "3"])
    out = capsys.readouterr().out
    assert str(tmp_path / "best.pt") in out
    assert len([line for line in out.splitlines() if EMAIL_LINE.match(line)]) == 3


def test_a_checkpoint_that_is_not_one_is_a_usage_error_not_a_traceback(tmp_path):
    path = tmp_path / "notes.pt"
    path.write_text("my notes")
    with pytest.raises(SystemExit) as stop:
        cli.main(["sample", "--checkpoint", str(path)])
    message = str(stop.value.code)
    assert message.startswith("attnbook: error: argument --checkpoint: expected a checkpoint")
    assert str(path) in message and "torch.save" in message


def test_a_file_torch_load_stops_inside_is_a_usage_error_naming_it(tmp_path):
    """A run's log.csv given as --checkpoint stopped torch.load's unpickler with
    `IndexError: pop from empty list`, a traceback; it is refused like any other file."""
    path = tmp_path / "log.csv"
    shutil.copyfile(ROOT / "assets" / "checkpoints" / "email_cpu_log.csv", path)
    for verb in ("sample", "evaluate"):
        with pytest.raises(SystemExit) as stop:
            cli.main([verb, "--checkpoint", str(path)])
        message = str(stop.value.code)
        assert message.startswith("attnbook: error: argument --checkpoint: expected a checkpoint")
        assert repr(str(path)) in message and "not a file torch.save wrote" in message, message


def _tiny_run(out: Path) -> None:
    train(dataclasses.replace(PRESETS["tiny"], out=str(out), steps=2, eval_every=1,
                              progress=False, num_threads=1, device="cpu"))  # fmt: skip


@pytest.mark.parametrize("verb", ["sample", "evaluate"])
def test_no_valid_sample_is_said_in_words_not_nan(verb, tmp_path, monkeypatch, capsys):
    """With every sample invalid there is no mean log-probability to show: the line says so
    (it printed "nan"), and evaluate's JSON has null there (NaN is no JSON)."""
    import attnbook.lm.generation as generation

    def all_invalid(model, tokenizer, grammar, count, **knobs):
        return [{"text": f"send send {i}", "valid": False, "reason": "not an email",
                 "log_prob_per_token": -math.inf, "n_tokens": 3} for i in range(count)]  # fmt: skip

    monkeypatch.setattr(generation, "sample_emails", all_invalid)
    _tiny_run(tmp_path / "run")
    argv = [verb, "--checkpoint", str(tmp_path / "run" / "best.pt")]
    argv += ["--count", "3"] if verb == "sample" else ["--emails", "20", "--samples", "3"]
    cli.main(argv + (["--out", str(tmp_path / "e.json")] if verb == "evaluate" else []))
    out = capsys.readouterr().out
    assert "no valid sample to score" in out and not re.search(r"\bnan\b", out), out
    if verb == "evaluate":
        assert json.loads((tmp_path / "e.json").read_text())["mean_log_prob"] is None


# -- what train refuses before any work ----------------------------------------------------
@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "which does not exist"),
        ("", "which is empty"),
        ("a short note\n", "which holds only 13 characters"),
        (b"\xff\xfe not utf-8 " * 40, "which is not UTF-8 text"),
        ("folder", "which is a folder"),
        ("/dev/null", "which is not a regular file"),
    ],
    ids=["missing", "empty", "short", "binary", "folder", "device"],
)
def test_train_refuses_a_text_it_cannot_use_and_makes_no_folder(
    content, said, tmp_path, monkeypatch, capsys
):
    """`--text nope.txt` gave a FileNotFoundError traceback and left an empty runs/nope/;
    an empty file a ValueError traceback. Now: a usage error naming --text, what it needs
    and what it got, before any folder is made."""
    monkeypatch.chdir(tmp_path)
    if content == "/dev/null":
        (tmp_path / "notes.txt").symlink_to("/dev/null")
    elif content == "folder":
        (tmp_path / "notes.txt").mkdir()
    elif isinstance(content, bytes):
        (tmp_path / "notes.txt").write_bytes(content)
    elif content is not None:
        (tmp_path / "notes.txt").write_text(content)
    with pytest.raises(SystemExit) as stop:
        cli.main(["train", "--text", "notes.txt", "--steps", "5", "--no-progress"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --text: expected a UTF-8 text file of at least 258 characters" in err, err
    assert f"got 'notes.txt', {said}" in err, err
    assert not (tmp_path / "runs").exists()


def test_train_refuses_a_folder_holding_a_run_unless_resume_or_overwrite(tmp_path, capsys):
    """A second `train` into the same --out replaced best.pt silently (a 6-minute cpu run, or
    the email model under a --text run). Now it is refused before any work, naming the folder,
    what it holds and both flags; --overwrite replaces it, --resume continues it."""
    out = tmp_path / "run"
    _tiny_run(out)
    before = (out / "best.pt").read_bytes()
    base = ["train", "--preset", "tiny", "--steps", "2", "--no-progress", "--threads", "1",
            "--device", "cpu", "--out", str(out)]  # fmt: skip
    text = tmp_path / "book.txt"
    text.write_text("the quick brown fox jumps over the lazy dog. " * 20)
    for extra in ([], ["--seed", "3"], ["--text", str(text)]):
        with pytest.raises(SystemExit) as stop:
            cli.main(base + extra)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert f"argument --out: expected a folder without a run, got {out}, which holds" in err
        assert "best.pt, last.pt, log.csv, loss_curve.png; 2 steps logged" in err, err
        assert "--resume continues it" in err and "--overwrite replaces it" in err, err
        assert (out / "best.pt").read_bytes() == before
    metrics = cli.main(base + ["--steps", "3", "--resume"])
    assert metrics["steps"] == 3  # continued from step 2
    cli.main(base + ["--overwrite", "--seed", "3"])
    assert (out / "best.pt").read_bytes() != before
    (out / "last.pt").unlink()  # best.pt alone: nothing to resume from
    with pytest.raises(SystemExit):
        cli.main(base + ["--resume"])
    assert f"argument --resume: expected {out / 'last.pt'} to continue from" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        cli.main(base + ["--resume", "--overwrite"])
    assert "argument --overwrite: not allowed with argument --resume" in capsys.readouterr().err


@pytest.mark.parametrize(
    "log", [b"\xff\xfe\x00x", b"a,b\n1,2\n"], ids=["not utf-8", "no step column"]
)
def test_train_refuses_a_run_whose_log_it_cannot_read_in_words(log, tmp_path, capsys):
    """The refusal read the run's log.csv to say how far it got: a log that was not UTF-8 gave
    a UnicodeDecodeError traceback, one without a step column 'None steps logged'."""
    out = tmp_path / "run"
    out.mkdir()
    (out / "last.pt").write_bytes(b"")
    (out / "log.csv").write_bytes(log)
    with pytest.raises(SystemExit) as stop:
        cli.main(["train", "--preset", "tiny", "--no-progress", "--out", str(out)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"got {out}, which holds one (last.pt, log.csv); --resume continues it" in err, err


def test_the_cpu_presets_time_is_the_same_wherever_it_is_given():
    """README, the preset's note, the tiny preset's pointer to it and --help gave ~6 and
    about 7 minutes for the same run."""
    from attnbook.lm.train import PRESET_NOTES

    readme = (ROOT / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "lm.train --preset cpu  " in x)
    said = {
        "README": re.findall(r"~(\d+) min", line),
        "cpu note": re.findall(r"about (\d+) minutes", PRESET_NOTES["cpu"]),
        "tiny note": re.findall(r"about (\d+) minutes", PRESET_NOTES["tiny"]),
        "--help": re.findall(r"about (\d+) minutes", capture_help()),
    }
    assert all(len(found) == 1 for found in said.values()), said
    assert len({found[0] for found in said.values()}) == 1, said


def capture_help() -> str:
    import contextlib
    import io

    from attnbook.lm.train import _parse_args

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), pytest.raises(SystemExit):
        _parse_args(["--help"])
    return " ".join(buffer.getvalue().split())


def test_judge_email_tells_valid_invalid_and_cut_off():
    tok = WordTokenizer()
    valid = "please send the report today ."
    ids = tok.encode(valid)  # <BOS> ... <EOS>
    judged = judge_email(DEFAULT_GRAMMAR, tok, ids)
    n = len(valid.split()) + 1
    assert judged["valid"] and judged["n_tokens"] == n
    assert judged["log_prob_per_token"] == pytest.approx(DEFAULT_GRAMMAR.log_prob(valid) / n)
    wrong = judge_email(DEFAULT_GRAMMAR, tok, tok.encode("please the report ."))
    assert not wrong["valid"] and "word 1 'the'" in wrong["reason"]
    cut = judge_email(DEFAULT_GRAMMAR, tok, tok.encode(valid, add_eos=False))
    assert not cut["valid"] and cut["text"].endswith("...") and "length limit" in cut["reason"]


def test_sample_emails_checks_its_knobs():
    model, tok, _ = load_trained(ROOT / "assets" / "checkpoints" / "email_cpu.pt")
    with pytest.raises(ValueError, match=r"top_p must be None .*; got top_p = 2"):
        sample_emails(model, tok, DEFAULT_GRAMMAR, 2, top_p=2.0)
    with pytest.raises(ValueError, match="count: expected an int >= 1, got 0"):
        sample_emails(model, tok, DEFAULT_GRAMMAR, 0)


def test_evaluate_reports_the_shipped_model_near_the_floor(capsys):
    report = cli.main(["evaluate", "--emails", "300", "--samples", "30"])
    assert 0.0 < report["excess_over_floor"] < 0.05, report
    assert report["valid"] > 0.8, report
    assert "above the floor" in capsys.readouterr().out


# -- progress ------------------------------------------------------------------------------
def test_eta_is_the_smaller_of_the_steps_left_and_the_budget_left():
    assert honest_eta(10, 1000, rate=1.0, seconds_to_deadline=None) == 990
    assert honest_eta(10, 1000, rate=1.0, seconds_to_deadline=5.0) == 5.0
    assert honest_eta(990, 1000, rate=1.0, seconds_to_deadline=50.0) == 10
    assert honest_eta(0, 1000, rate=None, seconds_to_deadline=7.0) == 7.0
    assert honest_eta(0, 1000, rate=None, seconds_to_deadline=None) is None
    assert honest_eta(5, 10, rate=1.0, seconds_to_deadline=-2.0) == 0.0


def test_budget_bar_shows_the_honest_eta():
    # Five steps of at least 10 ms: the steps left say 100 s or more, the deadline 60 s (far
    # enough that a loaded machine's stall does not reach it).
    bar = BudgetBar(total=10_000, deadline=time.perf_counter() + 60.0, disable=False,
                    file=open(os.devnull, "w"))  # fmt: skip
    for _ in range(5):
        time.sleep(0.01)
        bar.update(1)
    eta = bar.format_dict["eta_s"]
    bar.close()
    assert 0.0 < eta <= 60.0, f"steps left say >= 100 s, the deadline 60 s; the bar said {eta}"


def test_ablation_bar_counts_the_cpu_cap(monkeypatch):
    """A run stops at its last step or at its CPU-time cap: the bar's time left is the
    smaller of the two, so a run that the cap will stop early does not promise its steps."""
    from attnbook.experiments import ablation

    config = dataclasses.replace(ablation.TINY_CONFIG, steps=100_000, time_cap_s=2.0)
    run_bar = ablation._RunBar("rope", config, show=True)
    spin = time.process_time() + 0.2
    while time.process_time() < spin:  # 0.2 s of CPU for 10 "steps"
        pass
    run_bar(10)
    wall = time.perf_counter() - run_bar.wall0  # more than the CPU time on a busy machine
    eta = run_bar.bar.format_dict["eta_s"]
    run_bar.bar.close()
    by_steps = (100_000 - 10) / 10 * wall  # hours, at the rate seen
    by_cap = (2.0 - 0.2) * wall / 0.2  # the cap's CPU seconds left, at the CPU share seen
    assert 0.0 < eta <= 1.1 * by_cap < by_steps / 100, (eta, by_cap, by_steps)


def test_ablate_shows_a_bar_per_run(tmp_path, capsys):
    cli.main(
        [
            "ablate",
            "--variant",
            "rope",
            "--steps",
            "4",
            "--n-train",
            "200",
            "--threads",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert "rope seed 0" in out and "4/4" in out, out[-2000:]


# -- nothing tracked is overwritten unless asked -------------------------------------------
VERBS_SCRIPT = textwrap.dedent(
    """
    import subprocess, sys
    from pathlib import Path
    from attnbook import cli

    def status():
        return subprocess.run(["git", "status", "--porcelain"], capture_output=True,
                              text=True, check=True).stdout

    assert Path(cli.__file__).resolve().is_relative_to(Path.cwd().resolve()), cli.__file__
    cli.main(["train", "--preset", "tiny", "--steps", "3", "--no-progress", "--threads", "1"])
    cli.main(["ablate", "--variant", "rope", "--steps", "3", "--n-train", "200", "--threads",
              "1"])
    cli.main(["ablate", "--lengths", "--variant", "learned", "--seeds", "0", "--steps", "3",
              "--n-train", "300", "--threads", "1"])
    cli.main(["evaluate", "--emails", "20", "--samples", "3"])
    cli.main(["sample", "--count", "10"])
    print("STATUS AFTER DEFAULT RUNS:" + repr(status()))
    cli.main(["train", "--preset", "tiny", "--steps", "3", "--no-progress", "--threads", "1",
              "--into-assets", "--overwrite"])
    cli.main(["ablate", "--variant", "rope", "--steps", "3", "--n-train", "200", "--threads",
              "1", "--into-assets"])
    print("STATUS WITH --into-assets:" + repr(status()))
    """
)


def _copy_of_this_tree(dest: Path) -> None:
    """The working tree as it is (tracked and new files, uncommitted edits too), committed
    into a fresh repository at ``dest``."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "copy"]):
        subprocess.run(git + args, cwd=dest, check=True, capture_output=True)


def test_default_runs_of_every_verb_leave_git_status_clean(tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    _copy_of_this_tree(clone)
    done = subprocess.run([PYTHON, "-c", VERBS_SCRIPT], cwd=clone, env=_env(clone),
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = done.stdout
    assert "STATUS AFTER DEFAULT RUNS:''" in out, out[-3000:]
    assert (clone / "runs" / "email_tiny" / "best.pt").is_file()
    assert (clone / "runs" / "ablation" / "results.json").is_file()
    assert (clone / "runs" / "ablation" / "lengths.json").is_file()
    # a fresh clone samples ten emails with the README's one command
    assert len([line for line in out.splitlines() if EMAIL_LINE.match(line)]) == 10
    # --into-assets does write into the tracked assets: the shipped ladder and a checkpoint
    asked = out.split("STATUS WITH --into-assets:")[1]
    assert "assets/ablation/results.json" in asked, asked
    assert "assets/checkpoints/email_tiny.pt" in asked, asked


# -- the time budget -----------------------------------------------------------------------
def _seconds(command: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=_env(ROOT), check=True, capture_output=True)
    return time.perf_counter() - began


def test_process_start_is_before_the_first_line():
    assert process_start() < time.perf_counter()
    done = subprocess.run(
        [PYTHON, "-c", "import time; from attnbook.progress import process_start; "
         "print(time.perf_counter() - process_start())"],
        cwd=ROOT, env=_env(ROOT), capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert 0.0 < float(done.stdout) < 30.0, done.stdout


# Outside what the process can measure: fork and exec before /proc records its start (the
# start is read in 10 ms clock ticks), and reaping it after os._exit. Both are milliseconds;
# half a second covers them on a loaded machine.
SLACK_S = 0.5


def test_budget_bounds_the_whole_train_command(tmp_path):
    # What the command pays before it can train, measured apart: the interpreter alone, and
    # the interpreter with torch and the trainer imported. Both count against the budget,
    # which must leave room to train after them.
    bare_s = _seconds([PYTHON, "-c", "pass"])
    imports_s = _seconds([PYTHON, "-c", "import attnbook.lm.train"])
    budget = max(20.0, 3.0 * imports_s)
    out = tmp_path / "run"
    command = [
        PYTHON,
        "-m",
        "attnbook",
        "train",
        "--preset",
        "tiny",
        "--steps",
        "1000000",
        "--budget-seconds",
        f"{budget:.1f}",
        "--threads",
        "1",
        "--out",
        str(out),
    ]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=tmp_path, env=_env(ROOT), capture_output=True,
                          text=True, timeout=budget * 3)  # fmt: skip
    wall = time.perf_counter() - began
    assert done.returncode == 0, done.stderr[-3000:]
    figures = (
        f"budget {budget:.1f} s, wall {wall:.2f} s; measured apart: bare interpreter "
        f"{bare_s:.2f} s, interpreter + torch + trainer imports {imports_s:.2f} s"
    )
    print(figures)  # shown with pytest -s
    assert wall <= budget * 1.05 + SLACK_S, figures
    assert wall >= budget * 0.75, f"the budget stopped the run too early: {figures}"
    steps = int(re.search(r"^\s+steps: (\d+)$", done.stdout, re.M)[1])
    assert 1 < steps < 1_000_000, f"{steps} steps: {figures}"
    for name in ("best.pt", "last.pt", "log.csv", "loss_curve.png"):
        assert (out / name).is_file(), name
    # Every progress line's ETA fits in what is left of the budget (a million steps would
    # otherwise show hours); elapsed is the bar's own, which starts after the imports.
    shown = re.findall(r"\[(\d+):(\d\d)<(\d+):(\d\d)", done.stdout)
    assert shown, done.stdout[-2000:]
    for m1, s1, m2, s2 in shown:
        elapsed, eta = 60 * int(m1) + int(s1), 60 * int(m2) + int(s2)
        assert elapsed + eta <= budget + 1, f"elapsed {elapsed} s, ETA {eta} s: {figures}"


# -- the README ----------------------------------------------------------------------------
def test_readme_shows_each_verb_and_one_command_samples_ten_emails():
    readme, makefile = (ROOT / "README.md").read_text(), (ROOT / "Makefile").read_text()
    for verb in ("sample", "train", "evaluate", "ablate"):
        assert f"attnbook {verb} " in readme, f"the README never shows `attnbook {verb}`"
    assert "sample_emails(" in readme, "the README shows sample's Python equivalent"
    assert "`make sample`" in readme
    recipe = makefile.split("\nsample: setup\n", 1)[1].split("\n\n", 1)[0]
    assert "$(BIN)/attnbook sample $(SAMPLE_ARGS)" in recipe
    assert "SAMPLE_ARGS ?= --count 10" in makefile

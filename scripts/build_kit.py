"""Build the student kit: one zip a course hands to its students, installable offline.

    python scripts/build_kit.py                          # dist/attnbook-kit-<version>-<tag>.zip
    python scripts/build_kit.py --python python3.12      # wheels for another Python, this OS
    python scripts/build_kit.py --torch-index https://download.pytorch.org/whl/cpu
    python scripts/build_kit.py --skip-release-check     # trust that notebooks/ is current

The kit holds the released notebooks, a wheel of the student package built from this
checkout, the assets the notebooks load, a wheelhouse with every dependency (torch CPU,
JupyterLab 4, nbgrader 0.9, ...), the self-check, `install.py` and a student README. It holds
no solutions/, no autograder/, no reference answer, no mistake catalogue, no hidden test:
the package's wheel leaves out `attnbook/grading.py` (the hidden tests' door to the grader's
reference answers), and the kit is refused when any file in it carries a grader marker.

Wheels are platform-specific: the wheelhouse is resolved by the interpreter that runs pip
(`--python`, default this one), for this operating system and machine. Build one kit per
platform your students use, on that platform (a CI matrix of Linux, macOS and Windows does it);
the zip's name and kit.json say which it is. On Linux, PyPI's torch is the CUDA build, so
point `--torch-index` at PyTorch's CPU index unless a local CPU wheel is configured.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
KIT_FILES = ROOT / "scripts" / "kit"
TORCH_SPEC = "torch==2.13.0"  # the project's pin (Makefile TORCH_SPEC, environment.yml)
# The assets notebooks 07-11 load (attnbook.lm.generation.find_checkpoint,
# attnbook.experiments.ablation, attnbook.experiments.lengths,
# attnbook.lm.qwen3.tiny_checkpoint): the course model and its log, the ablation ladder's
# results, its length generalisation and its two probe models, and notebook 10's tiny Qwen3
# checkpoint with the logits transformers stored for it (generation_config.json is read by
# transformers' own loader).
KIT_ASSETS = (
    "assets/checkpoints/email_cpu.pt",
    "assets/checkpoints/email_cpu_log.csv",
    "assets/checkpoints/replies_cpu.pt",  # notebook 11's shipped encoder-decoder
    "assets/ablation/results.json",
    "assets/ablation/lengths.json",  # notebook 09's length generalisation
    "assets/ablation/probe_causal.pt",
    "assets/ablation/probe_unmasked.pt",
    "assets/qwen3_tiny/config.json",
    "assets/qwen3_tiny/generation_config.json",
    "assets/qwen3_tiny/model.safetensors",
    "assets/qwen3_tiny/expected.safetensors",
)
# The package's extras the kit installs: the lab and self-check, and notebook 10's Hugging
# Face readers (safetensors for its checkpoint, transformers for its comparison cell).
KIT_EXTRAS = "lab,hf"
# Package files a student never needs: the hidden tests' loader of the reference answers.
GRADER_ONLY = ("grading.py",)
STORED = (".whl", ".pt", ".png", ".zip", ".safetensors")  # already compressed: stored, not deflated
# What no file of the kit may carry, and why (checked before the zip is written).
MARKERS = {
    r"BEGIN SOLUTION|END SOLUTION": "a solution region",
    r"BEGIN HIDDEN TESTS|END HIDDEN TESTS": "a hidden test",
    r"\bload_reference\b": "the hidden tests' loader of reference answers",
    r"\bANSWERS\s*=(?!=)": "a table of concept answer letters",
    r"\bgrader\.(reference|mistakes|catalogue)\b": "the grader's answers or mistake catalogue",
    r"\bautograder/(reference|mistakes)\b": "the grader's answers or mistake catalogue",
}


class KitError(SystemExit):
    """A kit that must not be written; the message says why."""


# -- version and target ---------------------------------------------------------------------
def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def kit_version() -> str:
    """pyproject's version with the commit as a local label: 0.1.0+g0db0cdf (.dirty when the
    working tree differs from the commit)."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    dirty = ".dirty" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"{version}+g{git('rev-parse', '--short=7', 'HEAD')}{dirty}"


TARGET_PROBE = (
    "import json, platform, sys, sysconfig; print(json.dumps({"
    "'python': f'{sys.version_info.major}.{sys.version_info.minor}', "
    "'implementation': sys.implementation.name, 'system': platform.system(), "
    "'machine': platform.machine(), 'platform': sysconfig.get_platform()}))"
)


def target_of(python: str) -> dict:
    """The Python and system the wheelhouse is for, as that interpreter reports them."""
    out = subprocess.run([python, "-c", TARGET_PROBE], capture_output=True, text=True)
    if out.returncode != 0:
        raise KitError(f"--python {python} did not run: {out.stderr.strip()}")
    return json.loads(out.stdout)


def kit_name(version: str, target: dict) -> str:
    tag = re.sub(r"[^A-Za-z0-9]+", "_", target["platform"])
    return f"attnbook-kit-{version}-cp{target['python'].replace('.', '')}-{tag}"


# -- the wheels -----------------------------------------------------------------------------
def stage_package(stage: Path, version: str, readme: str) -> Path:
    """A copy of the package to build the student wheel from: this checkout's attnbook/
    without the grader-only files, with the kit's version and README."""
    source = stage / "attnbook-src"
    shutil.copytree(
        ROOT / "attnbook",
        source / "attnbook",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", *GRADER_ONLY),
    )
    pyproject = (ROOT / "pyproject.toml").read_text()
    pyproject, count = re.subn(r'(?m)^version = ".*"$', f'version = "{version}"', pyproject)
    if count != 1:
        raise KitError('pyproject.toml: expected one `version = "..."` line')
    (source / "pyproject.toml").write_text(pyproject)
    (source / "README.md").write_text(readme)
    shutil.copy(ROOT / "LICENSE", source / "LICENSE")
    return source


def pip(python: str, *args: str) -> None:
    command = [python, "-m", "pip", "--disable-pip-version-check", *args]
    if subprocess.run(command).returncode != 0:
        raise KitError(f"pip failed: {' '.join(command)}")


def build_wheels(
    python: str, source: Path, wheels: Path, requirement: str, torch_index: str | None
) -> None:
    """The student wheel, then every dependency as a wheel (sdists built by pip wheel)."""
    pip(sys.executable, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(source))
    extra = ["--extra-index-url", torch_index] if torch_index else []
    pip(
        python,
        "wheel",
        "--quiet",
        "--prefer-binary",
        "--wheel-dir",
        str(wheels),
        "--find-links",
        str(wheels),
        *extra,
        requirement,
        TORCH_SPEC,
        "pip",
    )
    cuda = sorted(p.name for p in wheels.glob("nvidia_*.whl"))
    if cuda:
        raise KitError(
            f"the wheelhouse got CUDA libraries ({', '.join(cuda[:3])}, ...): "
            "pip found PyPI's CUDA torch; rerun with --torch-index "
            "https://download.pytorch.org/whl/cpu"
        )


# -- the tree -------------------------------------------------------------------------------
def released_notebooks() -> list[Path]:
    """notebooks/NN_topic/NN_topic.ipynb, each folder's one released notebook."""
    found = sorted(d / f"{d.name}.ipynb" for d in (ROOT / "notebooks").iterdir() if d.is_dir())
    missing = [p for p in found if not p.is_file()]
    if missing or not found:
        raise KitError(
            f"notebooks/: no released notebook in {missing or 'any folder'}; run `make release`"
        )
    return found


def render_readme(version: str, target: dict) -> str:
    """The kit's README for the one platform the kit is built for: its commands only."""
    text = (KIT_FILES / "README.md").read_text(encoding="utf-8")
    if target["system"] == "Windows":
        commands = (
            "The first line once (it makes `.venv` with attnbook and JupyterLab, offline), "
            "the second to open the lab, in PowerShell or cmd:\n\n"
            "```\n"
            f"py -{target['python']} install.py\n"
            ".venv\\Scripts\\jupyter lab notebooks\n"
            "```"
        )
        check = "```\n.venv\\Scripts\\python scripts\\check_notebook.py 01\n```"
    else:
        commands = (
            "```bash\n"
            "python3 install.py                 # once: .venv with attnbook and JupyterLab, "
            "offline\n"
            ".venv/bin/jupyter lab notebooks    # open the lab\n"
            "```"
        )
        check = "```bash\n.venv/bin/python scripts/check_notebook.py 01\n```"
    return text.format(
        version=version,
        python=target["python"],
        system=target["system"],
        machine=target["machine"],
        commands=commands,
        check=check,
    )


def copy_tree(tree: Path, readme: str) -> list[str]:
    """Notebooks, assets, self-check, installer and lab settings into `tree`; returns the
    notebooks' folder names."""
    notebooks = released_notebooks()
    for path in [
        *notebooks,
        *(ROOT / a for a in KIT_ASSETS),
        ROOT / "scripts" / "check_notebook.py",
    ]:
        destination = tree / path.relative_to(ROOT)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, destination)
    shutil.copy(KIT_FILES / "install.py", tree / "install.py")
    shutil.copytree(KIT_FILES / "jupyter", tree / "jupyter")
    (tree / "README.md").write_text(readme, encoding="utf-8")
    return [p.parent.name for p in notebooks]


def write_manifest(tree: Path, version: str, target: dict, notebooks: list[str]) -> None:
    manifest = {
        "name": "attnbook-kit",
        "version": version,
        "commit": git("rev-parse", "HEAD"),
        "requirement": f"attnbook[{KIT_EXTRAS}]=={version}",
        "built_for": {k: target[k] for k in ("python", "system", "machine", "platform")},
        "notebooks": notebooks,
        "wheels": sorted(p.name for p in (tree / "wheels").glob("*.whl")),
    }
    (tree / "kit.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


# -- what the kit may not hold --------------------------------------------------------------
def is_ours(path: Path, tree: Path) -> bool:
    """Every file of the kit except the dependency wheels, which come from package indexes."""
    parts = path.relative_to(tree).parts
    return not (parts[0] == "wheels" and not path.name.startswith("attnbook-"))


def texts_of(path: Path, name: str) -> Iterator[tuple[str, str]]:
    """(name, text) of a file, or of each member of a zip (a wheel, a torch checkpoint); a
    notebook's text is its JSON and its cells' sources (in the JSON, quotes are escaped)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                yield f"{name}!{member}", archive.read(member).decode("utf-8", "replace")
        return
    text = path.read_bytes().decode("utf-8", "replace")
    if path.suffix == ".ipynb":
        cells = nbformat.reads(text, as_version=4).cells
        text += "\n" + "\n".join(cell.source for cell in cells)
    yield name, text


def kit_texts(tree: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        if is_ours(path, tree):
            yield from texts_of(path, path.relative_to(tree).as_posix())


def marker_findings(tree: Path) -> list[str]:
    """'file: why (matched text)' for every grader marker in the kit's own files."""
    found = []
    for name, text in kit_texts(tree):
        for pattern, why in MARKERS.items():
            match = re.search(pattern, text)
            if match:
                found.append(f"{name}: {why} ({match.group(0)!r})")
    return found


# -- the zip --------------------------------------------------------------------------------
def write_zip(tree: Path, out: Path) -> Path:
    """`tree` as out/<tree's name>.zip, one top folder, files in a stable order."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{tree.name}.zip"
    partial = target.with_suffix(".zip.part")
    with zipfile.ZipFile(partial, "w") as archive:
        for path in sorted(p for p in tree.rglob("*") if p.is_file()):
            method = zipfile.ZIP_STORED if path.suffix in STORED else zipfile.ZIP_DEFLATED
            archive.write(path, path.relative_to(tree.parent).as_posix(), compress_type=method)
    partial.replace(target)
    return target


def release_is_current() -> None:
    result = subprocess.run(
        [sys.executable, "scripts/release.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise KitError(
            f"notebooks/ is not what `make release` makes from solutions/:\n"
            f"{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )


def build(out: Path, python: str, torch_index: str | None = None) -> Path:
    """The kit as out/<name>.zip (see the module docstring); returns its path."""
    version, target = kit_version(), target_of(python)
    with tempfile.TemporaryDirectory(prefix="attnbook-kit-") as scratch:
        tree = Path(scratch) / kit_name(version, target)
        readme = render_readme(version, target)
        notebooks = copy_tree(tree, readme)
        source = stage_package(Path(scratch), version, readme)
        build_wheels(
            python, source, tree / "wheels", f"attnbook[{KIT_EXTRAS}]=={version}", torch_index
        )
        write_manifest(tree, version, target, notebooks)
        findings = marker_findings(tree)
        if findings:
            raise KitError("the kit would hold grader material:\n  " + "\n  ".join(findings))
        return write_zip(tree, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="default: dist/")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter whose wheels the kit holds (default: this one)",
    )
    parser.add_argument(
        "--torch-index",
        help="an extra index to find torch on, e.g. https://download.pytorch.org/whl/cpu",
    )
    parser.add_argument(
        "--skip-release-check",
        action="store_true",
        help="do not check that notebooks/ is current (make release)",
    )
    args = parser.parse_args(argv)
    if not args.skip_release_check:
        release_is_current()
    path = build(args.out, args.python, args.torch_index)
    print(
        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} "
        f"({path.stat().st_size / 2**20:.0f} MiB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate from the instructor source in solutions/ everything that derives from it.

    python scripts/release.py            # normalise solutions/, regenerate notebooks/ and
                                         # autograder/reference/
    python scripts/release.py --check    # exit 1 if anything is not what this would write
    python scripts/release.py --out DIR  # write the release somewhere else (used by tests)
    python scripts/release.py --force    # overwrite notebooks/ even where someone changed it
                                         # (their files are kept in work/.backups/ first)

The solution notebook is the one source of every answer. From it come:

- the student notebooks in notebooks/: nbgrader's own generate_assignment (solutions cut,
  hidden tests removed, outputs cleared, checksums recorded), then one canonical form: no
  outputs, no execution counts, only nbgrader metadata and tags, stable cell ids;
- the grader's reference answers, autograder/reference/nbNN_topic.py: the imports of the
  setup cells, every answer cell's code with the solution markers removed, and `ANSWERS`
  built from the concept cells (the options of the visible check, the letter the solution
  region sets, the `# Why:` lines above it). Generated files say so and are checked for
  staleness like notebooks/.

notebooks/ is the release, never anyone's work (`make lab` works in work/), but a clone from
before work/ existed, or a learner who opened notebooks/ directly, may hold answers there. So
a file in notebooks/ that this release would overwrite or delete must be one a release made:
the version git has committed or staged, or the one the last release here wrote (recorded in
the git-ignored .release-record.json). Any other is someone's work: the release refuses and
names it, or with --force copies it to work/.backups/ before going on.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
AUTOGRADER = ROOT / "autograder"
RECORD = ROOT / ".release-record.json"
BACKUPS = ROOT / "work" / ".backups"
KEEP_CELL_METADATA = ("nbgrader", "tags", "deletable", "editable")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def assignments() -> list[str]:
    """Every solutions/NN_topic folder holding NN_topic.ipynb, in order."""
    from grader.course import assignments as course_assignments

    return course_assignments(ROOT)


# -- the reference answers -----------------------------------------------------------------
REFERENCE = AUTOGRADER / "reference"
_REGION = re.compile(
    r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION[ \t]*\n?", re.DOTALL | re.MULTILINE
)
_OPTIONS = re.compile(r"check_choice\(\s*\"(answer_\w+)\",\s*answer_\w+,\s*\"([A-Z]+)\"\s*\)")


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _unmarked(source: str) -> str:
    """The cell as a student who wrote the solution would have it: markers removed."""
    return _REGION.sub(lambda m: m.group(1), source)


def _setup_imports(nb, used: set[str]) -> list[str]:
    """The setup cells' imports of the names in `used`, one statement per line."""
    lines = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "setup" not in cell.get("metadata", {}).get("tags", []):
            continue
        for node in ast.parse(cell.source).body:
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = [a for a in node.names if (a.asname or a.name).split(".")[0] in used]
            if names:
                node.names = names
                lines.append(ast.unparse(node))
    return lines


def _names_read(sources: list[str]) -> set[str]:
    return {
        node.id
        for source in sources
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Name)
    }


def _concept(cell, options: dict[str, str]) -> tuple[str, tuple[str, str, str]]:
    """(name, (options, letter, why)) of a concept answer cell."""
    name = _meta(cell)["grade_id"]
    body = _REGION.search(cell.source).group(1)
    letter = re.search(rf'^{name}\s*=\s*"([A-Z])"', body, re.MULTILINE)
    why = " ".join(
        line.lstrip("#").strip().removeprefix("Why:").strip()
        for line in body.splitlines()
        if line.lstrip().startswith("#")
    )
    if letter is None or not why or name not in options:
        raise ValueError(
            f"{name}: a concept cell needs its letter, a `# Why:` comment in its "
            "solution region and a check_choice test cell with its options"
        )
    return name, (options[name], letter.group(1), why)


def reference_source(notebook: str) -> str:
    """The text of autograder/reference/nb<notebook>.py, made from the solution notebook."""
    nb = nbformat.read(SOLUTIONS / notebook / f"{notebook}.ipynb", as_version=4)
    options = dict(
        m
        for c in nb.cells
        if c.cell_type == "code" and _meta(c).get("grade")
        for m in _OPTIONS.findall(c.source)
    )
    answers, code = {}, []
    for cell in nb.cells:
        meta = _meta(cell)
        if cell.cell_type != "code" or not meta.get("solution"):
            continue
        if meta["grade_id"].startswith("answer_"):
            name, entry = _concept(cell, options)
            answers[name] = entry
        else:
            code.append(
                f"# -- from the answer cell {meta['grade_id']}\n"
                + _unmarked(cell.source).strip()
                + "\n"
            )
    entries = "".join(f"    {name!r}: {entry!r},\n" for name, entry in answers.items())
    parts = [
        f'"""Reference answers for notebook {notebook}: generated, do not edit.\n\n'
        f"Made by scripts/release.py (`make release`) from the answer cells of\n"
        f"solutions/{notebook}/{notebook}.ipynb. Used by the hidden tests and the project's\n"
        f'own tests; never shipped to students.\n"""',
        "# ruff: noqa: E501, I001\n" + "\n".join(_setup_imports(nb, _names_read(code))),
        "# name: (options, correct letter, explanation shown when the answer is wrong)\n"
        f"ANSWERS = {{\n{entries}}}",
        *code,
    ]
    return "\n\n\n".join(part.strip("\n") for part in parts) + "\n"


def write_references(check: bool) -> list[str]:
    """Regenerate autograder/reference/; the files that were (or, with check, would be)
    changed, added or removed."""
    wanted = {f"nb{a}.py": reference_source(a) for a in assignments()}
    changed = []
    for name, text in wanted.items():
        path = REFERENCE / name
        if not path.is_file() or path.read_text() != text:
            changed.append(name)
            if not check:
                path.write_text(text)
    for path in REFERENCE.glob("nb*.py"):
        if path.name not in wanted:
            changed.append(path.name)
            if not check:
                path.unlink()
    return changed


def canonical(nb: nbformat.NotebookNode) -> str:
    """The one stored form of a notebook, as text."""
    nb.metadata = nbformat.from_dict(
        {
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
        }
    )
    nb.nbformat, nb.nbformat_minor = 4, 5
    for index, cell in enumerate(nb.cells):
        cell.metadata = nbformat.from_dict(
            {k: v for k, v in cell.metadata.items() if k in KEEP_CELL_METADATA}
        )
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        cell["id"] = grade_id or f"cell-{index:03d}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.validate(nb)
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def normalise(path: Path, check: bool) -> bool:
    """Rewrite `path` in canonical form; with check, only report. True if it changed."""
    text = path.read_text()
    new = canonical(nbformat.reads(text, as_version=4))
    if new == text:
        return False
    if not check:
        path.write_text(new)
    return True


# A tree that `generate` made before from the same inputs, to be copied instead of running
# nbgrader again (the test suite sets it: its session's release, for `make release` in a
# clone); used only when the digest written beside it (`<tree>.inputs`) is `inputs_digest()`.
REUSE_ENV = "ATTNBOOK_RELEASE_REUSE"


def inputs_digest() -> str:
    """What `generate` reads, by its bytes: every file of solutions/ (nbgrader copies an
    assignment's whole folder), the nbgrader configuration, this script, nbgrader's version."""
    import nbgrader

    digest = hashlib.sha256(f"nbgrader {nbgrader.__version__}\0".encode())
    inputs = [
        (f"solutions/{path.relative_to(SOLUTIONS).as_posix()}", path)
        for path in sorted(SOLUTIONS.rglob("*"))
        if path.is_file() and not {".ipynb_checkpoints", "__pycache__"} & set(path.parts)
    ]
    inputs += [
        ("autograder/nbgrader_config.py", AUTOGRADER / "nbgrader_config.py"),
        ("scripts/release.py", Path(__file__)),
    ]
    for name, path in inputs:
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def reusable_tree() -> Path | None:
    """The tree $ATTNBOOK_RELEASE_REUSE names, if it was made from this checkout's inputs."""
    named = os.environ.get(REUSE_ENV, "")
    if not named:
        return None
    tree = Path(named)
    stamp = tree.with_name(tree.name + ".inputs")
    if tree.is_dir() and stamp.is_file() and stamp.read_text().strip() == inputs_digest():
        return tree
    return None


def generate(out: Path) -> None:
    """Run nbgrader generate_assignment for every assignment into `out`."""
    reuse = reusable_tree()
    if reuse is not None:
        shutil.copytree(reuse, out)
        return
    for assignment in assignments():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "nbgrader",
                "generate_assignment",
                assignment,
                "--force",
                "--no-db",
                f"--CourseDirectory.release_directory={out}",
                "--log-level=WARN",
            ],
            cwd=AUTOGRADER,
            check=True,
        )
    for path in out.glob("*/*.ipynb"):
        normalise(path, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 if solutions/ or notebooks/ is stale",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="write the release here instead of notebooks/"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite files in notebooks/ that no release made (kept in work/.backups/)",
    )
    args = parser.parse_args(argv)

    stale = [p for p in sorted(SOLUTIONS.glob("*/*.ipynb")) if normalise(p, args.check)]
    if args.check and stale:
        print(
            "solutions not in canonical form (run `make release`):",
            *[str(p.relative_to(ROOT)) for p in stale],
            sep="\n  ",
        )
        return 1
    references = write_references(args.check and args.out is None)
    if args.check and args.out is None and references:
        print("autograder/reference/ is stale (run `make release`):", *references, sep="\n  ")
        return 1
    target = args.out or NOTEBOOKS
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "release"
        generate(fresh)
        if args.check:
            differ = _differences(fresh, NOTEBOOKS)
            if differ:
                print("notebooks/ is stale (run `make release`):", *differ, sep="\n  ")
                return 1
            print(f"notebooks/ is up to date ({len(assignments())} notebooks).")
            return 0
        if args.out is None:
            theirs = learner_changes(fresh, target)
            if theirs and not args.force:
                print(
                    "release: refusing to overwrite files in notebooks/ that no release made; "
                    "they may hold someone's work:",
                    *theirs,
                    sep="\n  ",
                    file=sys.stderr,
                )
                print(
                    "Your own notebooks belong in work/ (`make lab` copies notebooks/ there, "
                    "these changes included, and never overwrites a file). Then run "
                    "`make release FORCE=1`: it keeps a copy of each file above in "
                    "work/.backups/ and releases.",
                    file=sys.stderr,
                )
                return 1
            for name in theirs:
                kept = backup(target / name)
                print(f"kept {name} as {kept.relative_to(ROOT)}")
        _sync(fresh, target)
        if args.out is None:
            record(target)
    print(f"released {len(assignments())} notebooks into {target}")
    return 0


def _sync(fresh: Path, target: Path) -> None:
    """Make `target` equal to `fresh`, writing only what changed, one file at a time, so a
    notebook open or running in notebooks/ is never deleted from under it."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(fresh.rglob("*")):
        dest = target / path.relative_to(fresh)
        if path.is_dir():
            dest.mkdir(exist_ok=True)
        elif not dest.is_file() or dest.read_bytes() != path.read_bytes():
            tmp = dest.with_name(dest.name + ".tmp")
            shutil.copyfile(path, tmp)
            tmp.replace(dest)
    for path in sorted(target.rglob("*"), reverse=True):
        if ".ipynb_checkpoints" in path.parts:
            continue
        if not (fresh / path.relative_to(target)).exists():
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_versions(target: Path) -> dict[str, set[str]]:
    """Path under `target` -> the git blob ids of its versions in HEAD and in the index
    (empty when this is no git checkout)."""
    versions: dict[str, set[str]] = {}
    for command in (["ls-tree", "-r", "--full-name", "HEAD"], ["ls-files", "--stage"]):
        try:
            listing = subprocess.run(
                ["git", *command, "--", str(target)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        for line in listing.splitlines():
            info, _, name = line.partition("\t")
            fields = info.split()
            if len(fields) == 3 and name:
                blob = fields[2] if command[0] == "ls-tree" else fields[1]
                key = (ROOT / name).relative_to(target).as_posix()
                versions.setdefault(key, set()).add(blob)
    return versions


def _git_blob_ids(paths: list[Path]) -> list[str]:
    """The ids git would give these files' contents (its filters applied), or "" each."""
    try:
        return subprocess.run(
            ["git", "hash-object", "--", *map(str, paths)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return [""] * len(paths)


def _recorded() -> dict[str, str]:
    """relative path -> sha256 of what the last release here wrote into notebooks/."""
    try:
        record = json.loads(RECORD.read_text(encoding="utf-8"))
        return {k: v for k, v in record.get("files", {}).items() if isinstance(v, str)}
    except (OSError, ValueError, AttributeError):
        return {}


def record(target: Path) -> None:
    """Remember what this release wrote into `target` (.release-record.json)."""
    files = {
        path.relative_to(target).as_posix(): _sha256(path.read_bytes())
        for path in sorted(target.rglob("*"))
        if path.is_file() and ".ipynb_checkpoints" not in path.parts
    }
    partial = RECORD.with_name(RECORD.name + ".tmp")
    partial.write_text(json.dumps({"files": files}, indent=1) + "\n", encoding="utf-8")
    partial.replace(RECORD)


def learner_changes(fresh: Path, target: Path) -> list[str]:
    """The files under `target` that releasing `fresh` would overwrite or delete and that
    no release made: neither git's committed or staged version, nor what the last release
    here wrote. Jupyter's checkpoints are never touched, so never counted."""
    recorded, candidates = _recorded(), []
    for path in sorted(target.rglob("*")):
        if not path.is_file() or ".ipynb_checkpoints" in path.parts:
            continue
        name = path.relative_to(target).as_posix()
        new = fresh / name
        data = path.read_bytes()
        if new.is_file() and new.read_bytes() == data:
            continue  # the release writes what is there: nothing to lose
        if recorded.get(name) != _sha256(data):
            candidates.append((name, path))
    if not candidates:
        return []
    versions = _git_versions(target)
    ids = _git_blob_ids([path for _, path in candidates])
    if len(ids) != len(candidates):  # git said something else: trust none of it
        ids = [""] * len(candidates)
    return [
        name
        for (name, _), blob in zip(candidates, ids, strict=True)
        if not blob or blob not in versions.get(name, set())
    ]


def backup(path: Path) -> Path:
    """Copy `path` to work/.backups/<name>-<YYYY-MM-DDTHHMM>[-n]<suffix>; return the copy."""
    stamp = time.strftime("%Y-%m-%dT%H%M")
    BACKUPS.mkdir(parents=True, exist_ok=True)
    kept, count = BACKUPS / f"{path.stem}-{stamp}{path.suffix}", 2
    while kept.exists():
        kept, count = BACKUPS / f"{path.stem}-{stamp}-{count}{path.suffix}", count + 1
    shutil.copy2(path, kept)
    return kept


def _differences(fresh: Path, stored: Path) -> list[str]:
    names = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    names |= {
        p.relative_to(stored)
        for p in stored.rglob("*")
        if p.is_file() and ".ipynb_checkpoints" not in p.parts
    }
    return sorted(
        str(n)
        for n in names
        if not (fresh / n).is_file()
        or not (stored / n).is_file()
        or (fresh / n).read_bytes() != (stored / n).read_bytes()
    )


if __name__ == "__main__":
    sys.exit(main())

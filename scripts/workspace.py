"""Your own copy of the notebooks, which no release, no `make` target and no `git pull` touches.

    python scripts/workspace.py prepare          # copy into work/ what it lacks (make lab)
    python scripts/workspace.py reset 01         # work/01_*/01_*.ipynb back to the released
                                                 # one, the old one kept in work/backups/
    python scripts/workspace.py ... --work DIR   # another folder than work/

notebooks/ holds the released notebooks: `make release` and `git pull` rewrite it. work/ is
yours: git ignores it, `prepare` only ever adds to it (a notebook folder that work/ lacks, a
file a notebook folder lacks, as a newer workbook brings them) and never overwrites a file,
and `reset` moves the notebook it replaces into work/backups/ with the time in its name
(a folder the lab shows; older workbooks used work/.backups/, which JupyterLab hides: its
files are moved into work/backups/, never over one there, by the next `prepare` or `reset`).
In a clone, `prepare` also makes work/solutions/, a read-only copy of solutions/ for the lab,
afresh each time; a file a learner saved there anyway (root ignores the modes) is moved into
work/backups/solutions-<date>T<time>/, never deleted.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
WORK = ROOT / "work"
BACKUPS = "backups"  # not hidden: JupyterLab shows it, so a backup opens in the lab
OLD_BACKUPS = ".backups"  # where older workbooks kept them (hidden in the lab)
# work/.released.json: each copied file's released version (sha256) when it was copied or reset
RELEASED = ".released.json"


class WorkspaceError(Exception):
    """A request this script refuses, with the reason; nothing was changed."""


def _released_folders(released: Path) -> list[Path]:
    if not released.is_dir():
        raise WorkspaceError(f"released notebooks: expected a folder at {released}, found none")
    return sorted(p for p in released.iterdir() if p.is_dir() and not p.name.startswith("."))


def _files(folder: Path) -> list[Path]:
    """A released notebook folder's files, without Jupyter's checkpoints or hidden files."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _git_digest(path: Path, revision: str) -> str | None:
    """sha256 of `path`'s version in git (revision "HEAD", or "" for the index), None where
    git has none (no checkout, an untracked file, no git)."""
    try:
        data = subprocess.run(
            ["git", "show", f"{revision}:./{path.name}"],
            cwd=path.parent,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return hashlib.sha256(data).hexdigest()


def _released_digest(path: Path, released: Path, name: str) -> str:
    """The digest of the version of `path` (in `released`, as `name`) that was released. A
    file in notebooks/ may hold a learner's edits (work done there before work/ existed):
    then what was released is git's committed version, not the file. The file is the release
    when git has no version of it, when it is git's committed or staged version, or when the
    last `make release` here wrote it (.release-record.json beside notebooks/)."""
    current = _digest(path)
    committed = _git_digest(path, "HEAD")
    if committed is None or current in (committed, _git_digest(path, "")):
        return current
    try:
        made = json.loads((released.parent / ".release-record.json").read_text(encoding="utf-8"))
        if made.get("files", {}).get(name) == current:
            return current
    except (OSError, ValueError, AttributeError):
        pass
    return committed


def _read_record(work: Path) -> dict[str, str]:
    try:
        record = json.loads((work / RELEASED).read_text(encoding="utf-8"))
        return {k: v for k, v in record.items() if isinstance(k, str) and isinstance(v, str)}
    except (OSError, ValueError, AttributeError):
        return {}


def _write_record(work: Path, record: dict[str, str]) -> None:
    partial = work / f"{RELEASED}.partial"
    partial.write_text(json.dumps(dict(sorted(record.items())), indent=1) + "\n")
    partial.replace(work / RELEASED)


def _copy(source: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(f".{dest.name}.partial")
    shutil.copyfile(source, partial)
    partial.replace(dest)


def prepare(work: Path = WORK, released: Path = NOTEBOOKS) -> list[Path]:
    """Copy into `work` each released file it lacks; never overwrite one. Returns the files
    copied, as paths inside `work`."""
    return sync(work, released)[0]


def sync(work: Path = WORK, released: Path = NOTEBOOKS) -> tuple[list[Path], list[Path]]:
    """`prepare`, and the files of `work` whose released version changed since they were
    copied (a newer workbook's; `reset` takes it): (copied, updated in the release)."""
    if work.exists() and not work.is_dir():
        raise WorkspaceError(f"work: expected a folder for your notebooks, {work} is a file")
    record, copied, updated = _read_record(work), [], []
    for folder in _released_folders(released):
        for path in _files(folder):
            name = path.relative_to(released).as_posix()
            dest = work / name
            if dest.exists() or dest.is_symlink():
                was = record.get(name)  # a file in notebooks/ that holds the learner's own
                # edits is not a newer release: compare what was released (git's version)
                if was not in (None, _digest(path), _released_digest(path, released, name)):
                    updated.append(dest)
                continue
            _copy(path, dest)
            record[name] = _released_digest(path, released, name)
            copied.append(dest)
    if copied:
        _write_record(work, record)
    return copied, updated


def keep_edits_in_released(work: Path = WORK, released: Path = NOTEBOOKS) -> list[Path]:
    """A file of `released` (notebooks/) that holds edits of the learner's own, made after
    `work` had its copy (so `prepare` did not take them in), is copied into work/backups/ as
    <name>-from-notebooks-<date>T<time>: `git checkout notebooks/`, which a `git pull` may
    need, then loses nothing. Once per version of the edits (none when a backup holds it).
    Returns the backups made."""
    if not (work / BACKUPS).is_dir() and not work.is_dir():
        return []
    kept = {_digest(p) for p in (work / BACKUPS).glob("*") if p.is_file()}
    made = []
    for folder in _released_folders(released):
        for path in _files(folder):
            name = path.relative_to(released).as_posix()
            dest, current = work / name, _digest(path)
            if not dest.is_file() or current in kept or current == _digest(dest):
                continue
            if current == _released_digest(path, released, name):
                continue  # the release itself, not an edit
            backup = backup_path(dest.with_name(f"{dest.stem}-from-notebooks{dest.suffix}"), work)
            backup.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, backup)
            kept.add(current)
            made.append(backup)
    return made


SOLUTIONS = ROOT / "solutions"
VIEW = "solutions"  # work/solutions/: a read-only copy of solutions/, for the lab


# work/.solutions-view.json: each file the view was made of (sha256), so a refresh knows them
VIEW_RECORD = ".solutions-view.json"
_SKIP = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")


def solutions_view(work: Path = WORK, source: Path = SOLUTIONS) -> Path | None:
    """work/solutions/: a read-only copy of the instructor notebooks (`refresh_solutions_view`,
    which also says what of the learner's it moved aside). None where there is no solutions/."""
    return refresh_solutions_view(work, source)[0]


def refresh_solutions_view(
    work: Path = WORK, source: Path = SOLUTIONS
) -> tuple[Path | None, list[Path]]:
    """work/solutions/: a read-only copy of the instructor notebooks (a clone's solutions/;
    the kit has none), refreshed each time, so the lab can open them and nothing in it can
    save into solutions/ (files 0444, folders 0555). Root ignores those modes (make lab adds
    --allow-root), so a learner may still have saved there: only the files the last refresh
    copied, unchanged, are replaced; any other file (a new one, or a copied one changed) is
    moved into work/backups/solutions-<date>T<time>/, never deleted. Returns (the view, or
    None where there is no solutions/; the files moved aside)."""
    if not source.is_dir():
        return None, []
    view = work / VIEW
    if view.is_symlink() or view.is_file():
        raise WorkspaceError(f"{view}: expected the copy of solutions/ or nothing, found a file")
    moved: list[Path] = []
    if view.exists():
        for folder, _dirs, _files in os.walk(view):
            os.chmod(folder, 0o755)
        moved = _move_aside_the_learners(view, work, source)
        shutil.rmtree(view)
    shutil.copytree(source, view, ignore=_SKIP)
    record = {}
    for folder, _dirs, files in os.walk(view, topdown=False):
        for name in files:
            path = Path(folder, name)
            record[path.relative_to(view).as_posix()] = _digest(path)
            os.chmod(path, 0o444)
        os.chmod(folder, 0o555)
    partial = work / f"{VIEW_RECORD}.partial"
    partial.write_text(json.dumps(dict(sorted(record.items())), indent=1) + "\n")
    partial.replace(work / VIEW_RECORD)
    return view, moved


def _move_aside_the_learners(view: Path, work: Path, source: Path) -> list[Path]:
    """Move out of `view` every file that no refresh put there as it is now (per
    work/.solutions-view.json; without it, a file equal to its solutions/ original is the
    copy's): into work/backups/solutions-<stamp>/, same relative path. Returns the moved."""
    try:
        record = json.loads((work / VIEW_RECORD).read_text(encoding="utf-8"))
        record = record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        record = {}
    moved, stamp = [], time.strftime("%Y-%m-%dT%H%M")
    aside = work / BACKUPS / f"{VIEW}-{stamp}"
    count = 2
    while aside.exists():
        aside, count = work / BACKUPS / f"{VIEW}-{stamp}-{count}", count + 1
    for path in sorted(p for p in view.rglob("*") if p.is_file() or p.is_symlink()):
        name = path.relative_to(view).as_posix()
        if "__pycache__" in path.relative_to(view).parts:
            continue  # Python's byte code, made by an import: no one's work
        original = source / name
        ours = record.get(name) or (_digest(original) if original.is_file() else None)
        if not path.is_symlink() and ours is not None and _digest(path) == ours:
            continue
        dest = aside / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        path.rename(dest)
        moved.append(dest)
    return moved


def find_released(nb: str, released: Path = NOTEBOOKS) -> Path:
    """The released notebook that `nb` names: its number (01), a prefix of its folder
    (01_att) or its folder name."""
    folders = _released_folders(released)
    matches = [f / f"{f.name}.ipynb" for f in folders if f.name.startswith(nb) and nb]
    matches = [m for m in matches if m.is_file()]
    if len(matches) != 1:
        names = [f.name for f in folders]
        raise WorkspaceError(f"NB: expected one of {names} (or its number), got {nb!r}")
    return matches[0]


def backup_path(notebook: Path, work: Path, when: time.struct_time | None = None) -> Path:
    """work/backups/<name>-<YYYY-MM-DDTHHMM>.ipynb, with -2, -3, ... when that is taken."""
    stamp = time.strftime("%Y-%m-%dT%H%M", when or time.localtime())
    folder = work / BACKUPS
    candidate = folder / f"{notebook.stem}-{stamp}{notebook.suffix}"
    count = 2
    while candidate.exists():
        candidate = folder / f"{notebook.stem}-{stamp}-{count}{notebook.suffix}"
        count += 1
    return candidate


def adopt_old_backups(work: Path) -> list[Path]:
    """Move the backups an older workbook kept in work/.backups/ (hidden in the lab) into
    work/backups/, each under a free name (-2, -3, ... when its own is taken: never over a
    file). Returns their new paths; work/.backups/ is removed once empty."""
    old = work / OLD_BACKUPS
    if not old.is_dir() or old.is_symlink():
        return []
    moved = []
    for path in sorted(p for p in old.iterdir() if p.is_file() and not p.is_symlink()):
        dest, count = work / BACKUPS / path.name, 2
        while dest.exists() or dest.is_symlink():
            dest = work / BACKUPS / f"{path.stem}-{count}{path.suffix}"
            count += 1
        dest.parent.mkdir(parents=True, exist_ok=True)
        path.rename(dest)
        moved.append(dest)
    with contextlib.suppress(OSError):
        old.rmdir()  # only when empty: anything else there stays
    return moved


def reset(nb: str, work: Path = WORK, released: Path = NOTEBOOKS) -> tuple[Path, Path | None]:
    """Put the released notebook `nb` in place of yours in `work`; yours goes to
    work/backups/ first. Returns (your notebook's path, its backup or None if there was no
    copy to keep)."""
    source = find_released(nb, released)
    mine = work / source.relative_to(released)
    backup = None
    mine.parent.mkdir(parents=True, exist_ok=True)
    if mine.exists():
        if not mine.is_file():
            raise WorkspaceError(f"NB: expected a notebook file at {mine}, found something else")
        backup = backup_path(mine, work)
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(mine, backup)  # a copy first: if anything below fails, yours is intact
    _copy(source, mine)
    record = _read_record(work)
    record[source.relative_to(released).as_posix()] = _digest(source)
    _write_record(work, record)
    return mine, backup


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--work", type=Path, default=WORK, help="your notebooks' folder (default: work/)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("prepare", help="copy into work/ the released files it lacks")
    reset_parser = commands.add_parser("reset", help="one notebook back to the released one")
    reset_parser.add_argument("nb", help="the notebook: 01, 01_attention_scores, ...")
    args = parser.parse_args(argv)
    work = args.work if args.work.is_absolute() else Path.cwd() / args.work
    try:
        moved = adopt_old_backups(work)
        if moved:
            print(
                f"your {len(moved)} backup{'s' if len(moved) != 1 else ''} in "
                f"{_shown(work / OLD_BACKUPS)}/, which the lab hides, "
                f"{'are' if len(moved) != 1 else 'is'} now in {_shown(work / BACKUPS)}/:",
                *(f"  {_shown(p)}" for p in moved),
                sep="\n",
            )
        if args.command == "prepare":
            fresh = not work.exists()
            copied, updated = sync(work)
            if fresh:
                print(f"your notebooks are in {_shown(work)}/ (copied from notebooks/)")
            elif copied:
                print(f"new in this workbook, copied into {_shown(work)}/:")
                print(*(f"  {_shown(p)}" for p in copied), sep="\n")
            kept = keep_edits_in_released(work)
            if kept:
                print(
                    "notebooks/ holds edits of yours that your copy in work/ does not (work "
                    "in work/: the lab opens it). Kept in "
                    f"{_shown(work / BACKUPS)}/, so `git checkout notebooks/` loses nothing:",
                    *(f"  {_shown(p)}" for p in kept),
                    sep="\n",
                )
            if updated:
                print(
                    "changed in this workbook since your copy was made (yours is untouched; "
                    "`make reset NB=NN` takes the new one and keeps yours in "
                    f"{_shown(work / BACKUPS)}/):",
                    *(f"  {_shown(p)}" for p in updated),
                    sep="\n",
                )
            print(
                f"Your work lives in {_shown(work)}/: no release and no `git pull` touches it; "
                "`make reset NB=01` starts a notebook afresh and keeps a backup."
            )
            view, moved_aside = refresh_solutions_view(work)
            if moved_aside:
                print(
                    f"files saved into {_shown(work / VIEW)}/ (the copy of the solutions, "
                    "refreshed now) are yours, not the release's: kept, moved to",
                    *(f"  {_shown(p)}" for p in moved_aside),
                    sep="\n",
                )
            if view is not None:
                print(f"{_shown(view)}/: a read-only copy of the solutions, made afresh each time")
        else:
            mine, backup = reset(args.nb, work)
            if backup is not None:
                print(f"your previous {mine.name} is kept as {_shown(backup)}")
            print(f"{_shown(mine)} is the released notebook again")
    except WorkspaceError as err:
        print(f"workspace: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Copy a folder that a student controls, as a trusted process, without being tricked.

A student's submission folder in nbgrader's exchange belongs to the student, and a Gradescope
upload is whatever the student sent. The process that copies it (the TA's, or root in
Gradescope's container) can read the solutions and the reference answers, so a symbolic link
`01_attention_scores.ipynb -> .../solutions/...` copied by following it would hand in the
answer key (`shutil.copytree` and nbgrader's own collect do follow links). Here:

- no link is ever followed: every folder and file is opened relative to its parent's
  descriptor with O_NOFOLLOW, so a file swapped for a link while the copy runs fails to
  open instead of reading the target;
- only regular files are read (a FIFO or a device is opened non-blocking and skipped), and
  only those with one name: a hard link may be a second name of a file that the student
  cannot read but the copying process can (made where the system does not forbid it);
- depth, number of files and folders, and bytes are bounded, per file and in total.

Everything skipped is named in the notes returned, so the TA can see it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from grader.intake import printable
from grader.wire import read_at_most

MiB = 1024 * 1024


@dataclass
class CopyLimits:
    depth: int = 8
    files: int = 2000
    file_bytes: int = 200 * MiB  # intake's limit for one file (`grader.intake.MAX_RAW_BYTES`)
    total_bytes: int = 400 * MiB


@dataclass
class CopyResult:
    files: int = 0
    folders: int = 0
    bytes: int = 0
    newest_change: float = 0.0  # latest ctime seen (a student cannot set a ctime back)
    notes: list[str] = field(default_factory=list)


def copy_untrusted(
    source: Path,
    dest: Path,
    skip_top: frozenset[str] = frozenset(),
    limits: CopyLimits | None = None,
) -> CopyResult:
    """Copy the regular files under `source` into `dest` (created); names in `skip_top` at
    the top level are left out. Raises OSError when `source` itself cannot be opened as a
    folder (a link, a file, gone)."""
    limits, result = limits or CopyLimits(), CopyResult()
    fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        result.newest_change = os.fstat(fd).st_ctime
        dest.mkdir(parents=True, exist_ok=True)
        _copy_folder(fd, dest, "", 0, skip_top, limits, result)
    finally:
        os.close(fd)
    return result


def _copy_folder(
    folder_fd: int,
    dest: Path,
    relative: str,
    depth: int,
    skip_top: frozenset[str],
    limits: CopyLimits,
    result: CopyResult,
) -> None:
    for name in sorted(os.listdir(folder_fd)):
        shown = printable(f"{relative}{name}", 300)
        if depth == 0 and name in skip_top:
            continue
        try:
            info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        except OSError as err:
            result.notes.append(f"{shown}: could not be read ({type(err).__name__})")
            continue
        result.newest_change = max(result.newest_change, info.st_ctime)
        if stat.S_ISLNK(info.st_mode):
            result.notes.append(f"{shown}: a symbolic link, not copied")
        elif stat.S_ISDIR(info.st_mode):
            _copy_subfolder(folder_fd, name, dest, relative, depth, limits, result, shown)
        elif stat.S_ISREG(info.st_mode):
            _copy_file(folder_fd, name, dest / name, info.st_size, limits, result, shown)
        else:
            result.notes.append(f"{shown}: not a regular file (FIFO, socket or device), not copied")


def _copy_subfolder(folder_fd, name, dest, relative, depth, limits, result, shown) -> None:
    if depth + 1 >= limits.depth:
        result.notes.append(f"{shown}: folders nested deeper than {limits.depth}, not copied")
        return
    if result.folders >= limits.files:
        result.notes.append(f"{shown}: over {limits.files} folders, not copied")
        return
    result.folders += 1
    fd = _open_at(folder_fd, name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, result, shown)
    if fd is None:
        return
    try:
        (dest / name).mkdir(exist_ok=True)
        _copy_folder(fd, dest / name, f"{relative}{name}/", depth + 1, frozenset(), limits, result)
    finally:
        os.close(fd)


def _open_at(folder_fd: int, name: str, flags: int, result: CopyResult, shown: str) -> int | None:
    """The descriptor of ``name`` in the folder ``folder_fd``, opened with ``flags``; None,
    with a note in ``result``, where it cannot be opened."""
    try:
        return os.open(name, flags, dir_fd=folder_fd)
    except OSError as err:
        result.notes.append(f"{shown}: could not be opened ({type(err).__name__})")
        return None


def _copy_file(folder_fd, name, target: Path, size: int, limits, result, shown) -> None:
    if result.files >= limits.files:
        result.notes.append(f"{shown}: over {limits.files} files, not copied")
        return
    if size > limits.file_bytes or result.bytes + size > limits.total_bytes:
        result.notes.append(
            f"{shown}: {size / MiB:.0f} MiB, over the limit of "
            f"{limits.file_bytes // MiB} MiB a file and "
            f"{limits.total_bytes // MiB} MiB in all, not copied"
        )
        return
    fd = _open_at(folder_fd, name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, result, shown)
    if fd is None:
        return
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped after it was looked at
            result.notes.append(f"{shown}: changed into something else while copied, not copied")
            return
        if info.st_nlink > 1:  # another name of a file, maybe one only this process may read
            result.notes.append(f"{shown}: a hard link ({info.st_nlink} names), not copied")
            return
        data = read_at_most(fd, limits.file_bytes)
    finally:
        os.close(fd)
    if data is None:
        result.notes.append(
            f"{shown}: grew past {limits.file_bytes // MiB} MiB while copied, not copied"
        )
        return
    target.write_bytes(data)
    result.files += 1
    result.bytes += len(data)

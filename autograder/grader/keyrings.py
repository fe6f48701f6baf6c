"""A throwaway user's keyrings, emptied before its kernel runs any student code.

Linux keeps a user's keyrings (the user, user-session and persistent ones) per user id, not
per namespace, and the grader's throwaway ids come round again: without this, one student's
kernel could leave keys for a later one. Both ways a kernel starts as a throwaway user call
`fresh_keyrings` first: the zygote's fork (`grader.zygote`), and `python -m grader.kernel`
given `FRESH_KEYRINGS` (`grader.sandbox.kernel_command`, with `ATTNBOOK_KERNEL_ZYGOTE=0` or
the setpriv fallback).
"""

from __future__ import annotations

import ctypes
import errno
import os

FRESH_KEYRINGS = "fresh-keyrings"  # `grader.kernel`'s third argument: clear them first
_libc = ctypes.CDLL(None, use_errno=True)

KEYCTL = {"x86_64": 250, "aarch64": 219}  # the keyctl system call's number
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_GET_PERSISTENT = 1, 7, 22
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5
NO_KEYS = (errno.ENOSYS, errno.EPERM, errno.EOPNOTSUPP)  # keys off, or refused (seccomp)


def _keyctl(number: int, *args: int) -> tuple[int, int]:
    """(keyctl's result, errno)."""
    call = _libc.syscall
    call.restype = ctypes.c_long
    result = call(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    return result, ctypes.get_errno() if result < 0 else 0


def fresh_keyrings() -> None:
    """Keyrings with nothing an earlier kernel of this user id left: a session keyring of its
    own, and each of the user's cleared; RuntimeError (no kernel, a failed grading) when one
    cannot be. Where keys are off or refused, none can be left either."""
    number = KEYCTL.get(os.uname().machine)
    if number is None:
        return
    joined, why = _keyctl(number, KEYCTL_JOIN_SESSION_KEYRING, 0)
    if joined < 0:
        if why in NO_KEYS:
            return
        raise RuntimeError(f"fresh_keyrings: a session keyring of its own: {os.strerror(why)}")
    rings = [KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING]
    persistent, why = _keyctl(number, KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_SESSION_KEYRING)
    if persistent >= 0:
        rings.append(persistent)
    elif why not in NO_KEYS:
        raise RuntimeError(f"fresh_keyrings: the persistent keyring: {os.strerror(why)}")
    for ring in rings:
        cleared, why = _keyctl(number, KEYCTL_CLEAR, ring)
        if cleared < 0:
            raise RuntimeError(f"fresh_keyrings: clearing keyring {ring}: {os.strerror(why)}")

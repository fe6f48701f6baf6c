"""No kernel keyrings for student code: a seccomp filter refuses the key system calls.

Linux keeps a user's keyrings (the user, user-session and persistent ones) per user id, not
per namespace, and they outlive the user's processes; the grader's throwaway ids come round
again for a later student on the same worker. A kernel that could call keyctl could leave keys
there for a later one, or lock its user keyring (`KEYCTL_SETPERM`) so that no later kernel of
that id could empty it. Students have no use for keyrings, so `deny_keyrings` installs, after
the kernel has dropped to its user and before any student code, a seccomp filter under which
`add_key`, `request_key` and `keyctl` fail with `EPERM`, as does every system call made through
another ABI (a 64-bit process can make i386 calls with `int 0x80`, and x32 ones). No student
can then read, write or lock a keyring, so whatever an earlier kernel (or an older grader that
let it) left is unreachable, and nothing needs clearing: a keyring left locked cannot fail a
grading. Every kernel in a sandbox or run as a throwaway user calls it: the zygote's fork
(`grader.zygote`), and `python -m grader.kernel` given `DENY_KEYRINGS`
(`grader.sandbox.kernel_command`: as a throwaway user with `ATTNBOOK_KERNEL_ZYGOTE=0` or the
setpriv fallback, and, without root, as the grader's own user in a user namespace, where the
kernel would otherwise hold the session keyring of the TA's login and could read its keys or
leave some for the next kernel).
"""

from __future__ import annotations

import ctypes
import errno
import os
from typing import NamedTuple

DENY_KEYRINGS = "deny-keyrings"  # `grader.kernel`'s third argument: the filter first
_libc = ctypes.CDLL(None, use_errno=True)


class Arch(NamedTuple):
    audit: int  # AUDIT_ARCH_*: seccomp_data.arch of the native ABI
    seccomp: int  # the seccomp system call's number
    key_calls: tuple[int, ...]  # add_key, request_key, keyctl
    x32: bool  # system call numbers from 0x40000000 are another ABI's (x32)


ARCHES = {
    "x86_64": Arch(0xC000003E, 317, (248, 249, 250), x32=True),
    "aarch64": Arch(0xC00000B7, 277, (217, 218, 219), x32=False),
}
KEYCTL_GET_KEYRING_ID, KEYCTL_JOIN_SESSION_KEYRING = 0, 1
KEY_SPEC_SESSION_KEYRING = -3
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
X32_SYSCALL_BIT = 0x40000000
LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06  # classic BPF opcodes
NR_AT, ARCH_AT = 0, 4  # offsets in struct seccomp_data


class _Instruction(ctypes.Structure):  # struct sock_filter
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):  # struct sock_fprog
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def native_arch() -> Arch | None:
    """This process's system call ABI, where its numbers are known: a 64-bit Python on x86_64
    or aarch64. Elsewhere None, and no filter is installed (as before the filter: without the
    numbers nothing can be refused), so keyrings stay reachable there."""
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    return ARCHES.get(os.uname().machine)


def program(arch: Arch) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k): another ABI's call, or a key call, is refused with
    EPERM; every other call is allowed."""
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    steps: list[tuple[int, int, int, int]] = [
        (LD_W_ABS, 0, 0, ARCH_AT),
        (JEQ_K, 1, 0, arch.audit),  # the native ABI: on to its number
        (RET_K, 0, 0, deny),  # another ABI (i386 through int 0x80, arm32): every call
        (LD_W_ABS, 0, 0, NR_AT),
    ]
    jumps = [(JGE_K, X32_SYSCALL_BIT)] if arch.x32 else []
    jumps += [(JEQ_K, number) for number in arch.key_calls]
    last = len(steps) + len(jumps) + 1  # the refusal, after the allow
    for code, k in jumps:
        steps.append((code, last - len(steps) - 1, 0, k))
    return steps + [(RET_K, 0, 0, SECCOMP_RET_ALLOW), (RET_K, 0, 0, deny)]


def _syscall(number: int, *args: int) -> tuple[int, int]:
    """(the call's result, errno)."""
    call = _libc.syscall
    call.restype = ctypes.c_long
    result = call(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    return result, ctypes.get_errno() if result < 0 else 0


def deny_keyrings() -> None:
    """Refuse the key system calls to this process, every thread of it and all it starts;
    RuntimeError (no kernel: a failed grading) when the filter cannot be installed, or a key
    call still gets through. First, as a courtesy that may fail, an empty session keyring of
    its own, so the process no longer holds the one it inherited (the grader's, root's) even
    in name: /proc/keys lists what a process holds. Needs no_new_privs or CAP_SYS_ADMIN."""
    arch = native_arch()
    if arch is None:
        return
    keyctl = arch.key_calls[2]
    _syscall(keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0)  # may fail (keys off, quota): harmless
    steps = program(arch)
    table = (_Instruction * len(steps))(*(_Instruction(*step) for step in steps))
    filter_program = _Program(len(steps), table)
    done, why = _syscall(
        arch.seccomp,
        SECCOMP_SET_MODE_FILTER,
        SECCOMP_FILTER_FLAG_TSYNC,
        ctypes.addressof(filter_program),  # kept alive by the name until the call returns
    )
    if done != 0:
        hint = " (expected no_new_privs or CAP_SYS_ADMIN)" if why == errno.EACCES else ""
        what = os.strerror(why) if done < 0 else f"thread {done} could not be synchronised"
        raise RuntimeError(f"deny_keyrings: the seccomp filter was not installed: {what}{hint}")
    probe, why = _syscall(keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
    if probe >= 0 or why != errno.EPERM:
        raise RuntimeError(
            f"deny_keyrings: expected keyctl to fail with EPERM under the filter, got "
            f"{probe if probe >= 0 else os.strerror(why)}"
        )

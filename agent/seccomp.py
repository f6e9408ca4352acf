"""A seccomp filter for the user's kernel: threads yes, new processes no.

RLIMIT_NPROC does not bind root, and the agent runs as root on a GPU VM, so a fork bomb inside
bubblewrap would otherwise succeed. The program is handed to `bwrap --seccomp FD`.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# clone, clone3 and (x86_64 only) fork/vfork; clone3 passes its flags in memory a filter cannot read.
_SYSCALLS = {"x86_64": {"clone": 56, "fork": 57, "vfork": 58, "clone3": 435},
             "aarch64": {"clone": 220, "clone3": 435}}
_CLONE_THREAD = 0x00010000
_X32_SYSCALL_BIT = 0x40000000
_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000


def no_new_processes_filter(machine: str | None = None) -> bytes | None:
    """A seccomp BPF program (for `bwrap --seccomp FD`) that lets the child start threads but no
    processes: clone without CLONE_THREAD, fork and vfork fail with EAGAIN, clone3 with ENOSYS (so
    libc falls back to clone, whose flags the filter can read). None on an architecture it does not
    know. Foreign-ABI system calls (i386, x32) are refused outright."""
    machine = machine or platform.machine()
    if machine not in _AUDIT_ARCH:
        return None
    nr = _SYSCALLS[machine]
    # (code, k, jump-if-true label, jump-if-false label); labels name the return instructions.
    code: list[tuple[int, int, str | None, str | None]] = [
        (_LD_ABS_W, 4, None, None),  # seccomp_data.arch
        (_JEQ, _AUDIT_ARCH[machine], None, "eperm"),
        (_LD_ABS_W, 0, None, None),  # seccomp_data.nr
    ]
    if machine == "x86_64":
        code.append((_JGE, _X32_SYSCALL_BIT, "eperm", None))
        code += [(_JEQ, nr["fork"], "eagain", None), (_JEQ, nr["vfork"], "eagain", None)]
    code += [
        (_JEQ, nr["clone3"], "enosys", None),
        (_JEQ, nr["clone"], None, "allow"),
        (_LD_ABS_W, 16, None, None),  # the low half of seccomp_data.args[0]: clone's flags
        (_JSET, _CLONE_THREAD, "allow", "eagain"),
    ]
    returns = {"allow": _RET_ALLOW, "eagain": _RET_ERRNO | errno.EAGAIN, "enosys": _RET_ERRNO | errno.ENOSYS,
               "eperm": _RET_ERRNO | errno.EPERM}
    where = {label: len(code) + i for i, label in enumerate(returns)}
    program = b""
    for at, (op, k, if_true, if_false) in enumerate(code):
        jt = where[if_true] - at - 1 if if_true else 0
        jf = where[if_false] - at - 1 if if_false else 0
        program += struct.pack("=HBBI", op, jt, jf, k)
    for value in returns.values():
        program += struct.pack("=HBBI", _RET, 0, 0, value)
    return program


def pipe_holding(data: bytes) -> int:
    """A readable fd with `data` and then EOF (bwrap reads a seccomp program from an fd)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write_end)
    return read_end

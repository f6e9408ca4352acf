"""Seccomp filters for sandboxed programs (handed to `bwrap --seccomp FD`).

Every sandboxed program (the compiler too) is refused what only an escape needs: new namespaces
(unshare, setns, clone with namespace flags), mounts, keyrings, bpf, io_uring, userfaultfd,
perf events, ptrace, kernel modules. Nested user namespaces would otherwise hand the child every
capability in a namespace of its own, which opens netfilter, mount and the rest of the kernel's
attack surface; bwrap's --disable-userns closes the same door a second way.

The user's kernel also gets "threads yes, new processes no": RLIMIT_NPROC does not bind root, and
the agent runs as root on a GPU VM, so a fork bomb would otherwise succeed.

Sockets: only AF_UNIX (socket's and socketpair's first argument). bwrap's --unshare-all leaves no
network, but not every family is namespaced: AF_VSOCK reaches the VM's own port space and the
hypervisor (CID 2) from inside the sandbox, and netlink and the rest only add kernel surface.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# clone, clone3 and (x86_64 only) fork/vfork; clone3 passes its flags in memory a filter cannot read.
_SYSCALLS = {"x86_64": {"clone": 56, "fork": 57, "vfork": 58, "clone3": 435, "socket": 41, "socketpair": 53},
             "aarch64": {"clone": 220, "clone3": 435, "socket": 198, "socketpair": 199}}
AF_UNIX = 1
# Refused with EPERM. Numbers from the kernel's unistd tables (asm/unistd_64.h, asm-generic/unistd.h).
_REFUSED = {
    "x86_64": {"unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
               "sethostname": 170, "setdomainname": 171, "keyctl": 250, "add_key": 248, "request_key": 249,
               "bpf": 321, "userfaultfd": 323, "perf_event_open": 298, "ptrace": 101,
               "process_vm_readv": 310, "process_vm_writev": 311, "kexec_load": 246, "kexec_file_load": 320,
               "init_module": 175, "finit_module": 313, "delete_module": 176},
    "aarch64": {"unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
                "sethostname": 161, "setdomainname": 162, "keyctl": 219, "add_key": 217, "request_key": 218,
                "bpf": 280, "userfaultfd": 282, "perf_event_open": 241, "ptrace": 117,
                "process_vm_readv": 270, "process_vm_writev": 271, "kexec_load": 104, "kexec_file_load": 294,
                "init_module": 105, "finit_module": 273, "delete_module": 106},
}
# The same numbers on every architecture: the new mount API (open_tree .. mount_setattr,
# open_tree_attr) and io_uring.
_REFUSED_COMMON = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428,
                   "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
                   "mount_setattr": 442, "open_tree_attr": 467}
_CLONE_THREAD = 0x00010000
# CLONE_NEWTIME | CLONE_NEWNS | CLONE_NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
_CLONE_NAMESPACES = 0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 \
    | 0x20000000 | 0x40000000
_X32_SYSCALL_BIT = 0x40000000
_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000


def refused_syscalls(machine: str | None = None) -> dict[str, int]:
    """Name -> number of every system call the filters refuse with EPERM on this architecture."""
    machine = machine or platform.machine()
    return {**_REFUSED.get(machine, {}), **_REFUSED_COMMON}


def sandbox_filter(*, threads_only: bool, machine: str | None = None) -> bytes | None:
    """A seccomp BPF program: the refused system calls fail with EPERM, clone with a namespace flag
    too; with `threads_only`, clone without CLONE_THREAD, fork and vfork fail with EAGAIN. clone3
    always fails with ENOSYS (libc then falls back to clone, whose flags the filter can read).
    socket and socketpair of any family but AF_UNIX fail with EAFNOSUPPORT. Foreign-ABI system
    calls (i386, x32) are refused outright. None on an unknown architecture."""
    machine = machine or platform.machine()
    if machine not in _AUDIT_ARCH:
        return None
    nr = _SYSCALLS[machine]
    # (code, k, jump if true, jump if false): a label names a return instruction, a number skips
    # that many instructions.
    code: list[tuple[int, int, str | int | None, str | int | None]] = [
        (_LD_ABS_W, 4, None, None),  # seccomp_data.arch
        (_JEQ, _AUDIT_ARCH[machine], None, "eperm"),
        (_LD_ABS_W, 0, None, None),  # seccomp_data.nr
    ]
    if machine == "x86_64":
        code.append((_JGE, _X32_SYSCALL_BIT, "eperm", None))
    code += [(_JEQ, number, "eperm", None) for number in sorted(refused_syscalls(machine).values())]
    if threads_only and machine == "x86_64":
        code += [(_JEQ, nr["fork"], "eagain", None), (_JEQ, nr["vfork"], "eagain", None)]
    for call in ("socket", "socketpair"):  # the family, args[0]; the accumulator holds nr again after
        code += [(_JEQ, nr[call], None, 2), (_LD_ABS_W, 16, None, None), (_JEQ, AF_UNIX, "allow", "eafnosupport")]
    code += [
        (_JEQ, nr["clone3"], "enosys", None),
        (_JEQ, nr["clone"], None, "allow"),
        (_LD_ABS_W, 16, None, None),  # the low half of seccomp_data.args[0]: clone's flags
    ]
    if threads_only:
        code += [(_JSET, _CLONE_NAMESPACES, "eperm", None), (_JSET, _CLONE_THREAD, "allow", "eagain")]
    else:
        code.append((_JSET, _CLONE_NAMESPACES, "eperm", "allow"))
    returns = {"allow": _RET_ALLOW, "eagain": _RET_ERRNO | errno.EAGAIN, "enosys": _RET_ERRNO | errno.ENOSYS,
               "eperm": _RET_ERRNO | errno.EPERM, "eafnosupport": _RET_ERRNO | errno.EAFNOSUPPORT}
    where = {label: len(code) + i for i, label in enumerate(returns)}
    program = b""
    for at, (op, k, if_true, if_false) in enumerate(code):
        jt = if_true if isinstance(if_true, int) else where[if_true] - at - 1 if if_true else 0
        jf = if_false if isinstance(if_false, int) else where[if_false] - at - 1 if if_false else 0
        assert jt < 256 and jf < 256, "a seccomp jump is one byte"
        program += struct.pack("=HBBI", op, jt, jf, k)
    for value in returns.values():
        program += struct.pack("=HBBI", _RET, 0, 0, value)
    return program


def no_new_processes_filter(machine: str | None = None) -> bytes | None:
    """The user kernel's filter: sandbox_filter with threads only."""
    return sandbox_filter(threads_only=True, machine=machine)


def pipe_holding(data: bytes) -> int:
    """A readable fd with `data` and then EOF (bwrap reads a seccomp program from an fd)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write_end)
    return read_end

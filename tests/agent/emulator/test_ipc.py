"""The IPC contract with the harness: a child given HJEMU_ARENA_FD allocates device memory from that
memfd; a trusted parent attaches the same memfd (hjemuAttachArena) and opens the child's 64-byte
IPC handles into its own mapping, reading what the kernels wrote."""

from __future__ import annotations

import ctypes
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agent.emulator.build import FAULT_EXIT_CODE
from tests.agent.emulator.conftest import run_program
from tests.agent.emulator.driver import CompileFailed

ARENA_BYTES = 64 * 1024 * 1024


class IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


@pytest.fixture
def arena() -> Iterator[int]:
    fd = os.memfd_create("hjemu-test-arena", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, ARENA_BYTES)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    yield fd
    os.close(fd)


@pytest.fixture(scope="module")
def runtime(emu_runtime: Path) -> ctypes.CDLL:
    """libhjemu.so in this (the parent's) process: it attaches, it never runs a kernel."""
    lib = ctypes.CDLL(str(emu_runtime), mode=ctypes.RTLD_GLOBAL)
    lib.hipIpcOpenMemHandle.argtypes = [ctypes.POINTER(ctypes.c_void_p), IpcHandle, ctypes.c_uint]
    return lib


def run_child(programs: dict[tuple[str, str], Path | CompileFailed], fd: int, *args: str) -> tuple[int, dict, str]:
    env = {**os.environ, "HJEMU_ARENA_FD": str(fd)}
    os.set_inheritable(fd, True)
    result = run_program(programs, "ipc.hip", "hip", *args, env=env, pass_fds=(fd,))
    handles = {}
    for line in result.stdout.splitlines():
        label, error, size, hexed = line.split()
        handles[label] = (int(error), int(size), IpcHandle.from_buffer_copy(bytes.fromhex(hexed)))
    return result.returncode, handles, result.stderr


def open_handle(runtime: ctypes.CDLL, handle: IpcHandle) -> tuple[int, int]:
    ptr = ctypes.c_void_p()
    code = runtime.hipIpcOpenMemHandle(ctypes.byref(ptr), handle, 0)
    return code, ptr.value or 0


def test_parent_reads_what_the_child_wrote(emu_programs: dict, runtime: ctypes.CDLL, arena: int) -> None:
    code, handles, stderr = run_child(emu_programs, arena)
    assert code == 0, stderr
    assert runtime.hjemuAttachArena(arena) == 0
    for label, count, base in (("first", 1000, 0), ("second", 5000, 100000)):
        error, size, handle = handles[label]
        assert error == 0
        assert size == count * 4
        opened, ptr = open_handle(runtime, handle)
        assert opened == 0
        values = np.frombuffer(ctypes.string_at(ptr, size), dtype=np.int32)
        assert np.array_equal(values, np.arange(base, base + count, dtype=np.int32))
        assert runtime.hipIpcCloseMemHandle(ctypes.c_void_p(ptr)) == 0
    assert handles["host"][0] == 1  # a host pointer has no handle: hipErrorInvalidValue


def test_forged_handles_are_refused(emu_programs: dict, runtime: ctypes.CDLL, arena: int) -> None:
    _, handles, _ = run_child(emu_programs, arena)
    assert runtime.hjemuAttachArena(arena) == 0  # attaching an arena again replaces its mapping
    handle = handles["first"][2]
    assert open_handle(runtime, handle)[0] == 0
    raw = bytearray(bytes(handle))
    bad_magic = IpcHandle.from_buffer_copy(b"x" + bytes(raw[1:]))
    assert open_handle(runtime, bad_magic)[0] == 1  # hipErrorInvalidValue
    raw[8:16] = (ARENA_BYTES - 16).to_bytes(8, "little")  # offset + size beyond the arena
    assert open_handle(runtime, IpcHandle.from_buffer_copy(bytes(raw)))[0] == 205  # hipErrorMapFailed
    assert runtime.hjemuAttachArena(-1) == -1


def test_the_parent_reads_two_childrens_arenas_at_once_until_it_detaches_one(
        emu_programs: dict, runtime: ctypes.CDLL, arena: int) -> None:
    """A ranked pass drives the kernel's child and the reference's at once, each with its arena."""
    other = os.memfd_create("hjemu-test-arena-2", os.MFD_CLOEXEC)
    try:
        os.ftruncate(other, ARENA_BYTES)
        first, second = run_child(emu_programs, arena)[1], run_child(emu_programs, other)[1]
        assert runtime.hjemuAttachArena(arena) == 0
        assert runtime.hjemuAttachArena(other) == 0
        for handles in (first, second):
            opened, ptr = open_handle(runtime, handles["first"][2])
            assert opened == 0
            assert np.array_equal(np.frombuffer(ctypes.string_at(ptr, 4000), dtype=np.int32), np.arange(1000))
        assert runtime.hjemuDetachArena(other) == 0
        assert runtime.hjemuDetachArena(other) == -1
        assert open_handle(runtime, second["first"][2])[0] == 205  # hipErrorMapFailed: no longer mapped
        assert open_handle(runtime, first["first"][2])[0] == 0
    finally:
        runtime.hipGetLastError()  # the refused handle's error would stay for the next user of this runtime
        runtime.hjemuDetachArena(arena)
        os.close(other)


@pytest.mark.parametrize(("mode", "message"), [
    ("overflow", "out-of-bounds write of device buffer 'second' (20000 bytes) at byte 20000"),
    ("use-after-free", "invalid memory write at address"),
])
def test_guard_pages_hold_inside_the_arena(emu_programs: dict, arena: int, mode: str, message: str) -> None:
    code, _, stderr = run_child(emu_programs, arena, mode)
    assert code == FAULT_EXIT_CODE
    assert message in stderr


def test_a_bad_arena_fd_is_named(emu_programs: dict) -> None:
    result = run_program(emu_programs, "ipc.hip", "hip", env={**os.environ, "HJEMU_ARENA_FD": "999"})
    assert result.returncode == FAULT_EXIT_CODE
    assert "HJEMU_ARENA_FD=999 does not name a mappable memory file" in result.stderr

"""Buffers shared as file descriptors on a real CUDA GPU, and what came with that, without a GPU.

What an H100 showed, and what these tests hold in place: the child exports each buffer as an fd
(agent/devices/cuda_vmm.py; legacy IPC handles depend on the exporting process's identity across
the sandbox's PID namespace) and passes it with BUFFERS over SCM_RIGHTS. The channel must let
exactly those through and close anything else it receives; the parent must map what it asked for
and free all of it. The parent's memsets and copies run asynchronously in its own context, which
raced the child's kernel (poison landing on finished outputs), so a call settles the device before
GO. And nvcc lives outside the sandbox's standard PATH (/usr/local/cuda is a link to cuda-13.0), so
the toolchain names its real folder and the sandbox recreates the link. The driver and the device
are fakes here: what they emulate is the contract the code relies on, checked call by call.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

import agent.sandbox.bwrap as bwrap_module
from agent.devices.base import DeviceAccess, DeviceError
from agent.devices.cuda_vmm import VmmMemory
from agent.devices.gpu import IPC_HANDLE_BYTES, GpuDevice
from agent.devices.gpu_access import GUARD_BYTES, GpuAccess
from agent.devices.memory import BufferSpec
from agent.harness import channel as ch
from agent.harness.calls import Caller
from agent.sandbox.modes import BwrapSandbox
from agent.sandbox.resources import MIB, ProcessLimits
from agent.sandbox.toolchain import Toolchain
from tests.agent.conftest import descriptors_open_on

SPECS = [BufferSpec("a", np.dtype(np.float32), (10,), False), BufferSpec("b", np.dtype(np.int64), (3,), True)]


MEMFD_NAME = "fd-sharing-test"


def open_fds() -> int:
    """How many of this module's memfds this process still holds."""
    return descriptors_open_on(lambda target: target.startswith(f"/memfd:{MEMFD_NAME}"))


@pytest.fixture
def channels() -> Iterator[tuple[ch.ParentChannel, ch.ChildChannel]]:
    parent, child = ch.pair()
    child_channel = ch.ChildChannel(child.detach())
    yield ch.ParentChannel(parent), child_channel
    parent.close()
    child_channel.sock.close()


def send_memfds(child: ch.ChildChannel, kind: bytes, count: int) -> None:
    fds = [os.memfd_create(f"{MEMFD_NAME} {k}") for k in range(count)]
    for k, fd in enumerate(fds):
        os.write(fd, f"buffer {k}".encode())
    child.send(kind, bytes(IPC_HANDLE_BYTES * count), fds)
    ch.close_fds(fds)  # the parent holds its own copies, as the child's serve() leaves it


# ---- the channel -------------------------------------------------------------------------------

def test_buffers_carry_as_many_descriptors_as_asked_for_and_they_reach_the_parent(channels):
    parent, child = channels
    send_memfds(child, ch.BUFFERS, 2)
    message = parent.expect(ch.BUFFERS, max_fds=2)
    assert len(message.fds) == 2
    assert message.body == bytes(2 * IPC_HANDLE_BYTES)
    assert [os.pread(fd, 64, 0) for fd in message.fds] == [b"buffer 0", b"buffer 1"]
    ch.close_fds(message.fds)


@pytest.mark.parametrize("max_fds, sent, reason", [(2, 3, "more than 2"), (1, 2, "more than 1"),
                                                   (0, 1, "carrying file descriptors")],
                         ids=["truncated", "counted", "none_allowed"])
def test_more_descriptors_than_allowed_are_refused_and_none_stays_open(channels, max_fds, sent, reason):
    parent, child = channels
    before = open_fds()
    send_memfds(child, ch.BUFFERS, sent)
    with pytest.raises(ch.ProtocolError, match=reason):
        parent.receive(max_fds=max_fds)
    assert open_fds() == before


@pytest.mark.parametrize("kind, error", [(ch.DONE, ch.ProtocolError), (ch.FATAL, ch.ChildFailed)])
def test_descriptors_on_a_message_of_another_kind_are_closed_before_the_refusal(channels, kind, error):
    parent, child = channels
    before = open_fds()
    send_memfds(child, kind, 1)
    with pytest.raises(error):
        parent.expect(ch.BUFFERS, max_fds=1)
    assert open_fds() == before


# ---- VmmMemory against an emulated libcuda --------------------------------------------------------

class _Entry:
    """One driver function: checks its arguments as ctypes would against the argtypes VmmMemory
    set (none set: it fails), then returns the forced error code or runs the emulation."""

    def __init__(self, driver: FakeCuda, name: str) -> None:
        self.driver, self.name, self.argtypes = driver, name, cast(list[Any] | None, None)

    def __call__(self, *args: Any) -> int:
        assert self.argtypes is not None, self.name
        assert len(self.argtypes) == len(args), self.name
        for argtype, arg in zip(self.argtypes, args, strict=True):
            argtype.from_param(arg)
        self.driver.calls.append(self.name)
        return self.driver.fail.get(self.name) or getattr(self.driver, "_" + self.name)(*args) or 0


class FakeCuda:
    """Allocation handles, reserved ranges and mappings as dicts, with the driver's own rules:
    sizes are multiples of the granularity, a mapping never exceeds its allocation (801,
    CUDA_ERROR_NOT_SUPPORTED, as on the H100), a range is unmapped before it is freed."""

    def __init__(self, granularity: int) -> None:
        self.granularity, self.calls = granularity, list[str]()
        self.fail: dict[str, int] = {}  # name -> the error code it returns
        self.handles: dict[int, int] = {}  # live allocation handle -> size
        self.reserved: dict[int, int] = {}  # address -> size
        self.mapped: dict[int, tuple[int, int]] = {}  # address -> (size, handle)
        self.shared: dict[int, int] = {}  # exported fd -> allocation size
        for name in ("cuMemGetAllocationGranularity", "cuMemCreate", "cuMemAddressReserve", "cuMemMap",
                     "cuMemSetAccess", "cuMemExportToShareableHandle", "cuMemImportFromShareableHandle",
                     "cuMemUnmap", "cuMemAddressFree", "cuMemRelease"):
            setattr(self, name, _Entry(self, name))

    def _new(self, out: Any) -> int:  # a new handle or address, written to the out-parameter
        out._obj.value = (len(self.calls) + 1) << 32
        return int(out._obj.value)

    def _cuMemGetAllocationGranularity(self, out: Any, prop: Any, option: int) -> None:
        out._obj.value = self.granularity

    def _cuMemCreate(self, out: Any, size: int, prop: Any, flags: int) -> int | None:
        if size % self.granularity or prop._obj.handle_types != 1:
            return 1
        self.handles[self._new(out)] = size
        return None

    def _cuMemAddressReserve(self, out: Any, size: int, align: int, fixed: int, flags: int) -> int | None:
        if size % self.granularity:
            return 1
        self.reserved[self._new(out)] = size
        return None

    def _cuMemMap(self, address: int, size: int, offset: int, handle: int, flags: int) -> int | None:
        if self.reserved.get(address) != size or handle not in self.handles:
            return 1
        if size > self.handles[handle]:
            return 801
        self.mapped[address] = (size, handle)
        return None

    def _cuMemSetAccess(self, address: int, size: int, desc: Any, count: int) -> int:
        return 0 if self.mapped.get(address, (0, 0))[0] == size and desc._obj.flags == 3 else 1

    def _cuMemExportToShareableHandle(self, out: Any, handle: int, kind: int, flags: int) -> None:
        out._obj.value = fd = 1000 + len(self.shared)
        self.shared[fd] = self.handles[handle]

    def _cuMemImportFromShareableHandle(self, out: Any, os_handle: Any, kind: int) -> int | None:
        fd = os_handle.value if isinstance(os_handle, ctypes.c_void_p) else os_handle  # (void*)(uintptr_t)fd
        if fd not in self.shared or kind != 1:
            return 1
        self.handles[self._new(out)] = self.shared[fd]
        return None

    # What VmmMemory frees, it must have mapped, reserved or made (an AssertionError fails the test).
    def _cuMemUnmap(self, address: int, size: int) -> None:
        assert self.mapped.pop(address)[0] == size

    def _cuMemAddressFree(self, address: int, size: int) -> None:
        assert address not in self.mapped
        assert self.reserved.pop(address) == size

    def _cuMemRelease(self, handle: int) -> None:
        del self.handles[handle]


G = 64 * 1024


def vmm(driver: FakeCuda) -> tuple[VmmMemory, list[int]]:
    binds: list[int] = []
    return VmmMemory(cast(ctypes.CDLL, driver), lambda: binds.append(1)), binds


def test_allocations_are_rounded_up_to_the_granularity_and_exported_as_the_drivers_fd():
    driver = FakeCuda(G)
    memory, binds = vmm(driver)
    pointers = [memory.allocate(n) for n in (0, 1, G, G + 1)]
    assert [driver.mapped[p][0] for p in pointers] == [G, G, G, 2 * G]
    assert len(binds) == 4
    assert driver.calls.count("cuMemGetAllocationGranularity") == 1
    fd = memory.export(pointers[3])
    assert fd == 1000
    assert driver.shared == {1000: 2 * G}


def test_an_import_maps_the_rounded_size_asked_for_not_the_whole_allocation():
    driver = FakeCuda(G)
    child, _ = vmm(driver)
    fd = child.export(child.allocate(3 * G + 5))
    parent, binds = vmm(driver)
    ptr = parent.import_fd(fd, 2 * G + 1)
    size, handle = driver.mapped[ptr]
    assert size == 3 * G
    assert driver.handles[handle] == 4 * G
    assert binds == [1]


@pytest.mark.parametrize("fail", [None, "cuMemSetAccess"], ids=["larger_than_shared", "access_refused"])
def test_a_failed_import_releases_the_handle_and_frees_the_range(fail):
    driver = FakeCuda(G)
    child, _ = vmm(driver)
    fd = child.export(child.allocate(G))
    kept = (dict(driver.handles), dict(driver.reserved), dict(driver.mapped))
    parent, _ = vmm(driver)
    if fail:
        driver.fail[fail] = 1
    with pytest.raises(DeviceError, match=f"{fail or 'cuMemMap'} failed .* {1 if fail else 801}"):
        parent.import_fd(fd, 2 * G if fail is None else G)
    assert (driver.handles, driver.reserved, driver.mapped) == kept
    assert "cuMemImportFromShareableHandle" in driver.calls
    parent.free_all()  # nothing was kept to free


def test_free_and_free_all_unmap_free_the_range_and_release_everything_mapped():
    driver = FakeCuda(G)
    child, _ = vmm(driver)
    first, second = child.allocate(10), child.allocate(3 * G)
    parent, _ = vmm(driver)
    imported = [parent.import_fd(child.export(p), n) for p, n in ((first, 10), (second, 3 * G))]
    parent.free(imported[0])
    assert imported[0] not in driver.mapped
    assert imported[1] in driver.mapped
    assert len(driver.handles) == 3
    parent.free_all()
    child.free_all()
    assert driver.handles == {}
    assert driver.reserved == {}
    assert driver.mapped == {}


# ---- GpuAccess and Caller --------------------------------------------------------------------------

class FakeGpu:
    def __init__(self, *, shares_fds: bool = True, emulated: bool = False) -> None:
        self.name, self.shares_fds, self.emulated, self.waits = "cuda", shares_fds, emulated, 0
        self.opened, self.memsets = list[tuple[int, int]](), list[tuple[int, int, int]]()

    def open_fd(self, fd: int, nbytes: int) -> int:
        self.opened.append((fd, nbytes))
        return len(self.opened) << 32

    def memset(self, ptr: int, byte: int, nbytes: int) -> None:
        self.memsets.append((ptr, byte, nbytes))

    def wait_idle(self) -> None:
        self.waits += 1


def gpu_access(device: FakeGpu) -> GpuAccess:
    access = GpuAccess(cast(GpuDevice, device))
    access.case_message(SPECS)
    return access


def test_each_fd_is_mapped_for_its_buffer_and_guard_in_order():
    device = FakeGpu()
    gpu_access(device).attach([bytes(IPC_HANDLE_BYTES)] * 2, (21, 22))
    assert device.opened == [(21, 40 + GUARD_BYTES), (22, 24 + GUARD_BYTES)]
    assert [(ptr, size) for ptr, _, size in device.memsets] == [((1 << 32) + 40, GUARD_BYTES),
                                                                ((2 << 32) + 24, GUARD_BYTES)]


@pytest.mark.parametrize("shares_fds, fds", [(True, (21,)), (True, (21, 22, 23)), (False, (21, 22))],
                         ids=["too_few", "too_many", "not_a_sharing_device"])
def test_fds_that_do_not_match_the_buffers_or_the_device_are_refused(shares_fds, fds):
    device = FakeGpu(shares_fds=shares_fds)
    with pytest.raises(DeviceError, match="buffers shared where 2 were asked for"):
        gpu_access(device).attach([bytes(IPC_HANDLE_BYTES)] * 2, fds)
    assert device.opened == []


@pytest.mark.parametrize("emulated, waits", [(False, 1), (True, 0)])
def test_settling_waits_for_a_real_gpu_only(emulated, waits):
    device = FakeGpu(emulated=emulated)
    gpu_access(device).settle()
    assert device.waits == waits


class Recorder:
    """A channel and a device access at once: logs, in order, what the caller asks of each, and
    reads the fds handed to attach (which refuses them when told to)."""

    name = "cuda"

    def __init__(self, fails: bool = False, shares_fds: bool = True) -> None:
        self.shares_fds = shares_fds
        self.fails, self.log, self.seen, self.texts = fails, list[str](), tuple[int, ...](), list[bytes]()

    def settle(self) -> None:
        self.log.append("settle")

    def expect(self, kind: bytes, alive: object = None, max_fds: int = 0) -> None:
        self.log.append(f"expect {kind.decode()}")

    def go(self, seq: int, flags: int = 0, library: int = 0, resume: tuple[int, ...] = ()) -> tuple[int, int]:
        self.log.append("go")
        return 0, 0

    def pending(self) -> bool:
        return False

    def done(self, seq: int, alive: object = None, started: tuple[int, int] | None = None) -> ch.Done:
        self.log.append("done")
        return ch.Done(seq, True, 0.0, "", 0, 1000)

    def case_message(self, specs: list[BufferSpec]) -> list[dict[str, Any]]:
        return [{"name": s.name} for s in specs]

    def attach(self, handles: list[bytes], fds: tuple[int, ...] = ()) -> None:
        self.seen, self.texts = fds, [os.pread(fd, 64, 0) for fd in fds]
        if self.fails:
            raise DeviceError("cuMemMap failed (CUDA driver error 801)")


def test_a_call_settles_the_device_before_go():
    fake = Recorder()
    caller = Caller(cast(ch.ParentChannel, fake), cast(DeviceAccess, fake), lambda: True, np.random.default_rng(0))
    caller.call(empty=True)
    assert fake.log == ["settle", "go", "done"]


@pytest.mark.parametrize("fails", [False, True], ids=["attached", "refused"])
def test_setup_closes_the_passed_fds_whether_or_not_the_attach_succeeds(channels, fails):
    parent, child = channels
    before = open_fds()
    send_memfds(child, ch.BUFFERS, 2)
    access = Recorder(fails)
    caller = Caller(parent, cast(DeviceAccess, access), lambda: True, np.random.default_rng(0))
    try:
        caller.setup_case(SPECS, [])
    except DeviceError:
        assert fails
    assert access.texts == [b"buffer 0", b"buffer 1"]
    assert open_fds() == before
    for fd in access.seen:
        with pytest.raises(OSError):
            os.fstat(fd)


def test_a_device_that_shares_no_fds_refuses_buffers_that_carry_some(channels):
    parent, child = channels
    before = open_fds()
    send_memfds(child, ch.BUFFERS, 1)
    access = Recorder(shares_fds=False)  # the host device, HIP, the emulator
    caller = Caller(parent, cast(DeviceAccess, access), lambda: True, np.random.default_rng(0))
    with pytest.raises(ch.ProtocolError):
        caller.setup_case(SPECS, [])
    assert access.seen == ()
    assert open_fds() == before


# ---- the toolchain's PATH and the sandbox's links ----------------------------------------------------

def test_a_compiler_outside_the_standard_path_puts_its_real_folder_first(tmp_path, monkeypatch):
    real = tmp_path / "cuda-13.0" / "bin"
    real.mkdir(parents=True)
    (real / "nvcc").write_text("#!/bin/sh\n")
    (real / "nvcc").chmod(0o755)
    (tmp_path / "cuda").symlink_to(tmp_path / "cuda-13.0")
    monkeypatch.setenv("PATH", str(tmp_path / "cuda" / "bin"))
    assert Toolchain("cuda", "nvcc", "v").env() == {"PATH": f"{os.path.realpath(real)}:/usr/local/bin:/usr/bin:/bin"}


def test_a_compiler_in_usr_bin_adds_no_path(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin")
    found = shutil.which("true")
    if found is None or os.path.dirname(os.path.realpath(found)) != "/usr/bin":
        pytest.skip("no /usr/bin/true here")
    assert Toolchain("cuda", "true", "v").env() == {}
    assert Toolchain("hip", "true", "v").env() == {"HIP_PLATFORM": "amd"}


LIMITS = ProcessLimits(wall_s=20, cpu_s=20, memory_bytes=1024 * MIB, file_bytes=1024 * MIB, nproc=16,
                       output_bytes=8192)


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """(a link to a toolchain tree, that tree, a plain tree with a link inside it) as optional trees."""
    real, plain = tmp_path / "opt" / "cuda-13.0", tmp_path / "opt" / "nvidia"
    (real / "lib64").mkdir(parents=True)
    (real / "lib64" / "marker").write_text("through the link\n")
    (plain / "lib-1").mkdir(parents=True)
    (tmp_path / "opt" / "cuda").symlink_to("cuda-13.0")
    (plain / "lib").symlink_to("lib-1")
    monkeypatch.setattr(bwrap_module, "_OPTIONAL_TREES",
                        (str(tmp_path / "opt" / "cuda"), str(plain), str(plain / "lib"), str(tmp_path / "none")))
    return tmp_path / "opt" / "cuda", real, plain


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_linked_optional_tree_is_bound_at_its_real_path_and_linked_again(trees, job_box):
    link, real, plain = trees
    args, _, fds = BwrapSandbox().command(["/bin/true"], box=job_box, device="cuda", env={}, limits=LIMITS,
                                          layout=None, handoff=None)
    ch.close_fds(fds)
    pairs = {(args[i], args[i + 1], args[i + 2]) for i in range(len(args) - 2)}
    assert ("--ro-bind", str(real), str(real)) in pairs
    assert ("--symlink", str(real), str(link)) in pairs
    assert ("--ro-bind", str(plain), str(plain)) in pairs
    assert str(link.parent.parent / "none") not in args
    # plain/lib is visible through the bind of plain: neither bound again nor linked over
    assert str(plain / "lib") not in args
    assert str(plain / "lib-1") not in args


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_inside_the_sandbox_the_link_leads_to_the_tree(trees, job_box):
    if not bwrap_module.bwrap_works():
        pytest.skip("bubblewrap does not work here")
    link, real, _ = trees
    outcome = BwrapSandbox().spawn(["/bin/sh", "-c", f"readlink {link}; cat {link}/lib64/marker"], box=job_box,
                                   limits=LIMITS).wait()
    assert outcome.output.split("\n")[:2] == [str(real), "through the link"], outcome.output


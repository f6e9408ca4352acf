"""The judge's GPU device (agent/devices/gpu.py) unchanged, on the emulator's runtime instead of
ROCm's or CUDA's: allocation, copies, events, cache flush, launch-error handling, and the IPC path
the parent takes to a child's buffers (the emulator's handles point into a memfd both map)."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agent.devices import gpu
from agent.devices.base import DeviceError
from agent.devices.gpu_access import GpuAccess
from agent.devices.memory import Arena, BufferSpec
from tests.agent.emulator.driver import compile_library

KERNEL = """
__global__ void twice(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
extern "C" void solution(const float* in, float* out, int n, int threads) {
    twice<<<(n + 255) / 256, threads>>>(in, out, n);
}
"""


@pytest.fixture(params=["hip", "cuda"])
def device(request: pytest.FixtureRequest, emu_runtime: Path, monkeypatch: pytest.MonkeyPatch) -> gpu.GpuDevice:
    monkeypatch.setattr(gpu, "_HIP_FLUSH_BYTES", 8 * 1024 * 1024)  # the 512 MiB default is for MI300X
    dev = gpu.GpuDevice(request.param, gpu.load_runtime(request.param, str(emu_runtime)), emulated=True)
    yield dev
    dev.free_all()


def upload(device: gpu.GpuDevice, ptr: int, host: np.ndarray) -> None:
    device.upload(ptr, host.ctypes.data, host.nbytes)


def test_the_gpu_device_runs_a_kernel(device: gpu.GpuDevice, emu_workdir: Path) -> None:
    solution = ctypes.CDLL(str(compile_library(KERNEL, device.name, emu_workdir, "twice.cu")))
    n = 1000
    host = np.arange(n, dtype=np.float32)
    src, dst = device.alloc(host.nbytes, "in", 4), device.alloc(host.nbytes, "out", 4)
    upload(device, src, host)
    ms = device.timed_call(lambda: solution.solution(ctypes.c_void_p(src), ctypes.c_void_p(dst), n, 256))
    device.synchronize()
    out = np.empty_like(host)
    device.download(dst, out.ctypes.data, out.nbytes)
    assert np.array_equal(out, 2 * host)
    assert ms >= 0.0
    device.flush_cache()
    device.flush_cache()


def test_a_launch_error_is_reported_once(device: gpu.GpuDevice, emu_workdir: Path) -> None:
    solution = ctypes.CDLL(str(compile_library(KERNEL, device.name, emu_workdir, "twice.cu")))
    src, dst = device.alloc(4000), device.alloc(4000)
    solution.solution(ctypes.c_void_p(src), ctypes.c_void_p(dst), 1000, 2048)
    with pytest.raises(DeviceError, match=r"kernel launch failed: invalid configuration argument \(code 9\)"):
        device.synchronize()
    device.synchronize()  # the error was taken: the device goes on


def test_copies_outside_a_buffer_are_refused(device: gpu.GpuDevice) -> None:
    ptr = device.alloc(16)
    with pytest.raises(DeviceError, match=r"Memcpy failed: invalid argument \(code 1\)"):
        upload(device, ptr, np.zeros(8, dtype=np.float32))


PARENT_AND_CHILD = """
import os, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from agent.devices import gpu
from agent.devices.base import DeviceError
from agent.devices.gpu_access import GpuAccess
from agent.devices.memory import Arena, BufferSpec
arena = Arena(16 << 20)
os.environ["HJEMU_ARENA_FD"] = str(arena.fd)
child = gpu.GpuDevice("hip", gpu.load_runtime("hip", sys.argv[1]), emulated=True)
spec = BufferSpec("c", np.dtype(np.float32), (10,), True)
parent = GpuAccess(child, arena=arena, guard_bytes=4096)
message = parent.case_message([spec])[0]
ptr = child.alloc(message["alloc"], "c", 4)
parent.attach([child.share(ptr)[0]])
parent.write("c", np.arange(10, dtype=np.float32))
assert parent.read("c").tolist() == list(range(10))
assert parent.check_guards() is None
np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * 48).from_address(ptr))[44] = 0
print(parent.check_guards())
parent.release()
parent.case_message([spec])
try:
    parent.attach([child.share(child.alloc(16))[0]])
except DeviceError as exc:
    print(exc)
"""


def test_the_parent_opens_a_childs_buffers_by_handle_checks_their_size_and_guards(emu_runtime: Path) -> None:
    """One process plays both sides (in a subprocess: the arena is read from the environment at
    the runtime's first allocation): it allocates from the arena as the child does and attaches
    the same memfd as the parent does. With a guard zone asked for, as on a real GPU, a write past
    a buffer's end is named; a handle to a buffer smaller than the case's is refused."""
    root = str(Path(__file__).resolve().parents[3])
    result = subprocess.run([sys.executable, "-c", PARENT_AND_CHILD, str(emu_runtime), root],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "out-of-bounds write past the end of buffer 'c' (40 bytes): bytes 44 to 44 were written, up to 5 bytes "
        "(2 elements) past the end",
        "the buffer shared for c holds 16 bytes, not 40"]


def test_a_handle_of_another_arena_or_too_many_are_refused(emu_runtime: Path) -> None:
    arena = Arena(1 << 20)
    device = gpu.GpuDevice("cuda", gpu.load_runtime("cuda", str(emu_runtime), mode=ctypes.RTLD_LOCAL),
                           emulated=True)
    access = GpuAccess(device, arena=arena)
    try:
        access.case_message([BufferSpec("c", np.dtype(np.float32), (1000,), True)])
        foreign = b"hjemuIPC" + (0).to_bytes(8, "little") + (4096).to_bytes(8, "little") + bytes(40)
        with pytest.raises(DeviceError, match="IpcOpenMemHandle failed"):
            access.attach([foreign])
        with pytest.raises(DeviceError, match="2 buffers shared where 1 were asked for"):
            access.attach([foreign, foreign])
        with pytest.raises(DeviceError, match="wrong size"):
            access.attach([foreign[:10]])
    finally:
        access.close()

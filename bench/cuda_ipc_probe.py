"""Can the judge's parent reach GPU memory of a child in another PID namespace? Prints one line
per way of sharing, with the child started bare and under bubblewrap as the agent's sandbox
starts it (the namespaces only: the whole filesystem stays bound, so a library's place is no
factor). Needs an NVIDIA GPU, the CUDA runtime and bwrap.

    python3 bench/cuda_ipc_probe.py

- legacy: the child exports a cudaIpcGetMemHandle, the parent opens it (the IPC path HIP keeps);
- fd: the child exports a CUDA VMM allocation as a file descriptor and passes it over the socket,
  the parent maps it (agent/devices/cuda_vmm.py, the path CUDA jobs take). Mapping twice what the
  child allocated must fail: the parent never maps more than was shared.

On an H100 (driver 580.159, CUDA 13.0, 2026-11-27) the first version of this probe found: fd ok
in all three children (read the child's bytes; twice the size refused with CUDA_ERROR_NOT_SUPPORTED),
legacy ok bare and under --unshare-pid (which NVIDIA does not document), legacy under the agent's
flags not tried. This version drives the agent's own GpuDevice and was written after that GPU time
was spent: it has not run on a GPU itself.
"""

from __future__ import annotations

import ctypes
import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.devices.gpu import GpuDevice, IpcHandle, load_runtime  # noqa: E402

SIZE = 4 << 20
PATTERN = 0x5A
SANDBOXES = {
    "bare": [],
    "bwrap --unshare-pid": ["bwrap", "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--unshare-pid",
                            "--proc", "/proc", "--"],
    "bwrap as the agent": ["bwrap", "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--unshare-all",
                           "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--proc", "/proc", "--"],
}


def child(kind: str, sock: socket.socket) -> None:
    device = GpuDevice("cuda", load_runtime("cuda"))
    if kind == "legacy":
        device.vmm = None  # the runtime's own allocation and IPC handle
    ptr = device.alloc(SIZE)
    device.memset(ptr, PATTERN, SIZE)
    device.wait_idle()
    handle, fd = device.share(ptr)
    if fd is None:
        sock.send(handle)
    else:
        socket.send_fds(sock, [struct.pack("<Q", SIZE)], [fd])
        os.close(fd)
    sock.recv(16)  # the parent has read: the buffer may go


def first_bytes(device: GpuDevice, ptr: int) -> str:
    out = (ctypes.c_ubyte * 4)()
    device.download(ptr, ctypes.addressof(out), 4)
    return bytes(out).hex()


def parent(kind: str, wrap: list[str]) -> str:
    device = GpuDevice("cuda", load_runtime("cuda"))
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    command = [*wrap, sys.executable, str(Path(__file__).resolve()), "child", kind, str(theirs.fileno())]
    proc = subprocess.Popen(command, pass_fds=[theirs.fileno()])
    theirs.close()
    ours.settimeout(60)
    try:
        if kind == "legacy":
            raw = ours.recv(64)
            ptr = ctypes.c_void_p()
            device._call("IpcOpenMemHandle", ctypes.byref(ptr), IpcHandle.from_buffer_copy(raw), ctypes.c_uint(1))
            line = f"ok, read {first_bytes(device, int(ptr.value or 0))}"
        else:
            _, fds, _, _ = socket.recv_fds(ours, 64, 2)
            try:
                too_much = "mapped"
                try:
                    device.open_fd(fds[0], 2 * SIZE)
                except Exception as exc:  # noqa: BLE001 - any refusal is the answer
                    too_much = f"refused ({exc})"
                line = f"ok, read {first_bytes(device, device.open_fd(fds[0], SIZE))}; twice the size: {too_much}"
            finally:
                os.close(fds[0])
        ours.send(b"x")
    except Exception as exc:  # noqa: BLE001 - the probe reports whatever failed
        line = f"FAILED: {exc}"
    finally:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    return line


def main() -> None:
    if sys.argv[1:2] == ["child"]:
        child(sys.argv[2], socket.socket(fileno=int(sys.argv[3])))
        return
    print(f"{'sharing':8} {'child':22} result")
    for kind in ("legacy", "fd"):
        for name, wrap in SANDBOXES.items():
            print(f"{kind:8} {name:22} {parent(kind, wrap)}", flush=True)


if __name__ == "__main__":
    main()

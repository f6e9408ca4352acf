"""agent.pause: the child is stopped, every thread of it, while the parent writes what its outputs
depend on; found by the kernel's parent links; on an AMD GPU its resident waves are read."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent.pause import ChildPause, GpuResidue, PauseError, descendants

THREADS = """
import threading, time
def spin():
    while True:
        pass
for _ in range(3):
    threading.Thread(target=spin, daemon=True).start()
print("ready", flush=True)
time.sleep(60)
"""


def states(pid: int) -> list[str]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
    return found


@pytest.fixture
def spinning():
    """A process of four threads, three of them spinning (a watcher of the inputs would)."""
    proc = subprocess.Popen([sys.executable, "-c", THREADS], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    yield proc
    proc.kill()
    proc.wait()


def test_every_thread_of_the_child_is_stopped_before_stop_returns_and_runs_again_on_resume(spinning):
    pause = ChildPause([spinning.pid])
    pause.stop()
    assert states(spinning.pid) == ["T"] * 4
    pause.resume()
    assert "R" in states(spinning.pid) or "S" in states(spinning.pid)
    assert "T" not in states(spinning.pid)


def test_the_processes_below_the_sandboxs_first_are_found_by_their_parent_links(spinning):
    shell = subprocess.Popen(["/bin/sh", "-c", f"{sys.executable} -c 'import time; time.sleep(60)' & wait"])
    try:
        for _ in range(500):  # the shell starts its child
            if len(found := descendants(shell.pid)) == 2:
                break
            threading.Event().wait(0.01)
        assert found[0] == shell.pid and len(found) == 2
        assert spinning.pid not in found
    finally:
        for pid in descendants(shell.pid)[1:]:
            subprocess.run(["kill", "-9", str(pid)], check=False)
        shell.wait()


def test_a_child_that_does_not_stop_in_time_is_an_error_with_a_sentence(spinning, monkeypatch):
    monkeypatch.setattr("agent.pause._all_stopped", lambda pids: False)
    with pytest.raises(PauseError, match="kept running"):
        ChildPause([spinning.pid]).stop(bound_s=0.05)
    ChildPause([spinning.pid]).resume()
    with pytest.raises(PauseError):
        ChildPause([])


def test_resident_waves_are_read_from_the_kernel_drivers_counters(tmp_path):
    for pid, gpu, waves in ((101, 1, "0"), (101, 2, "12"), (202, 1, "40")):
        counter = tmp_path / str(pid) / f"stats_{gpu}" / "cu_occupancy"
        counter.parent.mkdir(parents=True)
        counter.write_text(waves + "\n")
    assert GpuResidue([101], root=tmp_path).waves() == 12
    assert GpuResidue([303], root=tmp_path).waves() == 0  # nothing reported: NVIDIA, an older kernel

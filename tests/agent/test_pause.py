"""agent.sandbox.pause: the child is stopped, every thread of it, while the parent writes what its outputs
depend on; found by the kernel's parent links; on an AMD GPU its resident waves are read."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from agent.problems.bundle import Problem
from agent.sandbox.pause import ChildPause, GpuResidue, PauseError, descendants, user_processes
from tests.agent.conftest import load_problem, run_job

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
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
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
    """bwrap, its init, the child: only the last runs the user's code, and it is the one paused."""
    shell = subprocess.Popen(["/bin/sh", "-c", f"{sys.executable} -c 'import time; time.sleep(60)' & wait"])
    try:
        for _ in range(500):  # the shell starts its child
            if len(found := descendants(shell.pid)) == 2:
                break
            threading.Event().wait(0.01)
        assert found[0] == shell.pid
        assert len(found) == 2
        assert spinning.pid not in found
        assert user_processes(shell.pid) == [found[1]]
    finally:
        for pid in descendants(shell.pid)[1:]:
            subprocess.run(["kill", "-9", str(pid)], check=False)
        shell.wait()


def test_a_child_that_does_not_stop_in_time_is_an_error_with_a_sentence(spinning, monkeypatch):
    monkeypatch.setattr("agent.sandbox.pause.all_stopped", lambda pids: False)
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


class _Channel:
    def pending(self) -> bool:
        return False

    def go(self, seq: int, flags: int = 0, library: int = 0, resume: tuple[int, ...] = ()) -> tuple[int, int]:
        return 0, 0

    def done(self, seq: int, alive: object = None, started: object = None) -> Any:
        from agent.harness.channel import Done

        return Done(seq, True, 0.0, "", 1, 1)


class _GpuAccess:
    """A real GPU's buffers as the parent sees them, where `written` says whether the child's device
    work wrote the output while its host threads were stopped."""

    name = "hip"
    shares_fds = False

    def __init__(self, written: bool) -> None:
        self.written = written

    def read_elements(self, name: str, indices: Any) -> Any:
        import numpy as np

        poison = np.full(len(indices), 0xFFFFFFFF, np.uint32).view(np.float32)
        return np.zeros(len(indices), np.float32) if self.written else poison

    def poison(self, name: str) -> None: ...
    def evict(self) -> None: ...
    def settle(self) -> None: ...
    def check_guards(self) -> None: ...


class _Pause:
    pids = [1]

    def stop(self) -> None: ...


class _Residue:
    def __init__(self, waves: int) -> None:
        self.count = waves

    def waves(self) -> int:
        return self.count


@pytest.mark.parametrize(("written", "waves", "words"), [(False, 3, "kept running on the GPU between calls"),
                                                         (True, 0, "was written while the program was paused")],
                         ids=["resident_waves", "output_written"])
def test_a_paused_child_whose_gpu_work_went_on_is_refused(written: bool, waves: int, words: str) -> None:
    """A persistent kernel watching the inputs runs on while the host threads are stopped: its waves
    are resident (amdkfd counts them), or it wrote the output before the clock started."""
    import numpy as np

    from agent.devices.memory import BufferSpec
    from agent.harness.calls import Caller, Refused

    caller = Caller(_Channel(), _GpuAccess(written), lambda: True, np.random.default_rng(0),  # type: ignore[arg-type]
                    pause=lambda: (_Pause(), _Residue(waves)))  # type: ignore[arg-type,return-value]
    caller.outputs = [BufferSpec("c", np.dtype(np.float32), (1024,), True)]
    with pytest.raises(Refused, match=words):
        caller.timed()


def _kernel_threads() -> dict[int, list[str]]:
    """The states of every thread of each sandboxed child running below this process."""
    found = {}
    for pid in descendants(os.getpid())[1:]:
        try:
            if b"agent.harness.child" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found[pid] = states(pid)
        except OSError:
            continue  # gone meanwhile
    return found


def test_a_kernel_thread_spinning_between_calls_is_stopped_while_the_judge_works(
        judge_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 40: a thread started by the first call spins on; while the judge makes inputs (its own
    work, which the child's clock does not count) the child runs nothing at all, so the spinner
    cannot slow the judge, and the verdict does not depend on how busy the machine is."""
    seen: list[dict[int, list[str]]] = []
    generate = Problem.generate

    def watching(self: Problem, *args: Any, **kwargs: Any) -> Any:
        seen.append(_kernel_threads())
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(Problem, "generate", watching)
    source = (Path(__file__).parent / "corpus" / "spin_during_judge_work.cpp").read_text()
    result, _ = run_job(load_problem("vector-add"), source, "cpp", "benchmark", {"case_budget_s": 0.2},
                        config=judge_config)
    assert result["status"] == "ACCEPTED", result
    spinning = [threads for found in seen for threads in found.values() if len(threads) > 1]
    assert spinning  # inputs were made while the kernel's spinner existed
    assert all(set(threads) == {"T"} for threads in spinning), spinning

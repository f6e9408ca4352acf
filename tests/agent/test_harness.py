"""The trusted parent's own parts, each against what a hostile child can do: the control channel
(sizes, descriptors, forged end-of-call messages, the kernel's time stamps), the shared memory
(sealed, guard zones naming an out-of-bounds write), the input changes of timed runs, the
bounds on GPU event times, and how the end of a child is classified."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agent.devices.host import HostAccess
from agent.devices.memory import LEAD_BYTES, PAGE, TRAIL_BYTES, Arena, BufferSpec, host_layout, is_poison, poison_byte
from agent.harness import channel as ch
from agent.judging.compiler import build_evict_helper
from agent.judging.phase import JobContext, Phase
from agent.judging.timing_checks import fresh_anomaly, gpu_times, implausible, overhead_bound
from agent.judging.verify import Mutation
from agent.problems.bundle import Case
from agent.sandbox.modes import Outcome, Sandbox
from agent.sandbox.resources import ResourceLimits
from tests.agent.conftest import ROOT, descriptors_open_on, load_problem

F32 = np.dtype(np.float32)


# ---- the control channel -------------------------------------------------------------------------

@pytest.fixture
def channel_pair():
    parent, child = ch.pair()
    yield ch.ParentChannel(parent), child
    parent.close()
    child.close()


def test_a_message_longer_than_the_cap_is_refused_not_buffered(channel_pair):
    parent, child = channel_pair
    child.send(b"D" + b"x" * (ch.MAX_MESSAGE + 10))
    with pytest.raises(ch.ProtocolError, match=f"longer than {ch.MAX_MESSAGE} bytes"):
        parent.receive()


def test_descriptors_the_child_passes_are_closed_by_the_kernel_and_refused(channel_pair):
    parent, child = channel_pair
    stderr = os.readlink("/proc/self/fd/2")
    before = descriptors_open_on(stderr.__eq__)
    passed = [os.dup(2) for _ in range(50)]
    child.sendmsg([b"B"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"{len(passed)}i", *passed))])
    for fd in passed:
        os.close(fd)
    with pytest.raises(ch.ProtocolError, match="file descriptors"):
        parent.receive()
    assert descriptors_open_on(stderr.__eq__) == before


@pytest.mark.parametrize("body, reason", [
    (ch.DONE_LAYOUT.pack(7, 0, 0.5), "the end of call 7 while call 1 was running"),
    (ch.DONE_LAYOUT.pack(1, 0, float("nan")), "malformed"),
    (ch.DONE_LAYOUT.pack(1, 0, -1.0), "malformed"),
    (ch.DONE_LAYOUT.pack(1, 2, 0.5), "malformed"),
    (b"\x01\x00", "malformed"),
], ids=["wrong_call", "nan_time", "negative_time", "bad_status", "short"])
def test_forged_or_malformed_end_of_call_messages_are_refused(channel_pair, body, reason):
    parent, child = channel_pair
    child.send(ch.DONE + body)
    with pytest.raises(ch.ProtocolError, match=reason):
        parent.done(1)


def test_a_message_of_another_kind_or_a_fatal_one_is_refused_with_its_text(channel_pair):
    parent, child = channel_pair
    child.send(ch.READY)
    with pytest.raises(ch.ProtocolError, match="where b'D' was due"):
        parent.done(1)
    child.send(ch.FATAL + b"cannot load the solution: \x1b[31mundefined symbol\n" + b"y" * 5000)
    with pytest.raises(ch.ChildFailed) as info:
        parent.expect(ch.READY)
    assert str(info.value).startswith("cannot load the solution:  [31mundefined symbol")
    assert len(str(info.value)) <= ch.MAX_TEXT


def test_the_end_of_a_call_carries_the_kernels_stamp_of_when_the_child_sent_it(channel_pair):
    parent, child = channel_pair
    started = parent.go(1)
    assert child.recv(64)[:1] == ch.GO
    child.send(ch.DONE + ch.DONE_LAYOUT.pack(1, 0, 0.25))
    done = parent.done(1)
    assert done.ok and done.event_ms == 0.25 and done.sent_ns >= started[0]
    assert 0 <= ch.call_elapsed_ns(started, done) <= done.received_mono_ns - started[1]


def test_an_end_of_call_queued_before_the_call_started_is_refused_not_timed_by_the_parent(channel_pair):
    """The variant of a forged clock: DONE for the next call, sent before its GO. Its kernel stamp
    is older than the call's start (or it has none): refused, never replaced by the parent's receipt."""
    parent, child = channel_pair
    child.send(ch.DONE + ch.DONE_LAYOUT.pack(1, 0, 0.0))
    assert parent.pending()  # found before the next call starts (agent.harness.calls)
    started = parent.go(1)
    with pytest.raises(ch.ProtocolError, match="an end of call sent before the call started"):
        parent.done(1, started=started)


def test_pending_sees_a_message_nobody_asked_for_but_not_an_empty_or_closed_channel(channel_pair):
    parent, child = channel_pair
    assert not parent.pending()
    child.send(ch.READY)
    assert parent.pending() and parent.pending()  # a peek: still there
    parent.receive()
    assert not parent.pending()
    child.close()
    assert not parent.pending()  # the end is the next receive's to report
    with pytest.raises(ch.ChildGone):
        parent.receive()


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_native_go_reads_the_clocks_resumes_the_child_and_sends_with_no_python_in_between(tmp_path):
    sender = ch.stamped_sender(build_evict_helper(tmp_path))
    assert sender is not None
    parent, child = ch.pair()
    channel = ch.ParentChannel(parent, sender)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        os.kill(sleeper.pid, signal.SIGSTOP)
        assert wait_for_state(sleeper.pid, "T")
        real, mono = channel.go(5, ch.GO_EMPTY, resume=(sleeper.pid,))
        assert wait_for_state(sleeper.pid, "S")  # resumed by the same native step
        assert child.recv(64) == ch.GO + ch.GO_LAYOUT.pack(5, ch.GO_EMPTY, 0)
        child.send(ch.DONE + ch.DONE_LAYOUT.pack(5, 0, 0.0))
        done = channel.done(5, started=(real, mono))
        assert real <= done.sent_ns and mono <= done.received_mono_ns
        child.close()
        with pytest.raises(ch.ChildGone):
            channel.go(6)
    finally:
        sleeper.kill()
        sleeper.wait()
        parent.close()


def wait_for_state(pid: int, state: str, tries: int = 500) -> bool:
    for _ in range(tries):
        with open(f"/proc/{pid}/stat") as fh:
            if fh.read().rsplit(")", 1)[1].split()[0] == state:
                return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("sent, expected", [(1_000_300, 300), (0, 900), (999_000, 900), (1_005_000, 900)],
                         ids=["stamped", "no_stamp", "stamp_before_go", "stamp_after_receipt"])
def test_a_call_is_timed_by_the_stamp_and_never_longer_than_the_parents_clock(sent, expected):
    done = ch.Done(1, True, 0.0, "", sent_ns=sent, received_mono_ns=5_900)
    assert ch.call_elapsed_ns((1_000_000, 5_000), done) == expected


def test_a_silent_child_the_watchdog_stopped_ends_the_wait(channel_pair):
    parent, _ = channel_pair
    with pytest.raises(ch.ChildGone):
        parent.receive(alive=lambda: False, poll_s=0.01)


def test_a_closed_channel_is_the_end_of_the_child():
    parent, child = ch.pair()
    child.close()
    with pytest.raises(ch.ChildGone):
        ch.ParentChannel(parent).receive()
    parent.close()


def test_the_childs_process_holds_no_numpy_for_a_kernel_to_borrow():
    """The kernel shares the harness's process: numpy there would hand it a BLAS (scipy_cblas_*)
    past the forbidden patterns. The child needs none: the parent does all the array work."""
    probe = ("import sys, agent.harness.child; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'yaml')))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


# ---- shared memory and guard zones ---------------------------------------------------------------

def test_the_arena_cannot_be_shrunk_grown_or_unsealed_by_whoever_holds_it():
    arena = Arena(3 * PAGE)
    try:
        holder = os.open(f"/proc/self/fd/{arena.fd}", os.O_RDWR)  # a descriptor like the child's
        for attempt in (lambda: os.ftruncate(holder, 0), lambda: os.ftruncate(holder, 10 * PAGE),
                        lambda: fcntl.fcntl(holder, fcntl.F_ADD_SEALS, 0)):
            with pytest.raises(PermissionError):
                attempt()
        os.close(holder)
        arena.bytes[:] = 7  # the parent's mapping is whole
    finally:
        arena.close()


def test_buffers_get_their_own_guard_zones_and_staggered_starts():
    specs = [BufferSpec(name, F32, (1000,), name == "c") for name in "abc"]
    placements, size = host_layout(specs)
    spans = [(p.offset - LEAD_BYTES, p.offset + p.spec.nbytes + TRAIL_BYTES) for p in placements]
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))
    assert spans[0][0] >= 0 and spans[-1][1] <= size
    assert [p.offset % PAGE for p in placements] == [0, 320, 640]


@pytest.fixture
def host_access(tmp_path: Path):
    specs = [BufferSpec("a", F32, (5,), False), BufferSpec("c", F32, (5,), True)]
    access = HostAccess(HostAccess.arena_bytes([specs]), evict_helper=None)
    access.case_message(specs)
    access.attach([])
    yield access
    access.close()


@pytest.mark.parametrize("offset, expected", [
    (20, "out-of-bounds write past the end of buffer 'c' (20 bytes): bytes 20 to 20 were written, up to 1 byte "
         "(1 element) past the end"),
    (20 + 40_000, "out-of-bounds write past the end of buffer 'c' (20 bytes): bytes 40020 to 40020 were written, "
                  "up to 40001 bytes (10001 elements) past the end"),
    (-1, "out-of-bounds write before the start of buffer 'c' (20 bytes): 1 byte before its first element"),
], ids=["one_past", "stride", "before"])
def test_a_write_into_a_guard_zone_names_the_buffer_and_how_far(host_access, offset, expected):
    assert host_access.check_guards() is None
    start = host_access._placements["c"].offset
    host_access.arena.bytes[start + offset] ^= 0xFF
    message = host_access.check_guards()
    assert message is not None and message.startswith(expected), message


def test_outputs_are_poisoned_and_read_back_as_copies(host_access):
    host_access.poison("c")
    out = host_access.read("c")
    assert is_poison(out).all() and np.isnan(out).all()
    host_access.write("c", np.arange(5, dtype=np.float32))
    assert not is_poison(host_access.read("c")).any()
    assert np.isnan(out).all()  # the earlier copy did not change with the memory
    assert poison_byte(np.dtype(np.int32)) == 0xA5 and poison_byte(F32) == 0xFF


def test_the_input_changes_of_a_timed_run_are_applied_undone_and_replayed_exactly(host_access):
    original = {"a": np.arange(5, dtype=np.float32)}
    host_access.write("a", original["a"])
    mutation = Mutation.draw(original, 64, np.random.default_rng(3))
    targets, values = mutation.changes["a"]
    assert len(set(targets.tolist())) == len(targets)  # each element changed once: the replay is exact
    mutation.apply(host_access)
    assert np.array_equal(host_access.read("a"), mutation.applied_to(original)["a"])
    mutation.undo(host_access, original)
    assert np.array_equal(host_access.read("a"), original["a"])
    assert set(values.tolist()) <= set(original["a"].tolist())  # values stay in the input's domain


def test_an_input_marked_mutate_false_is_left_as_generated_by_the_timed_runs(host_access):
    # CSR row pointers must stay increasing: an element taken from elsewhere in the buffer breaks them.
    original = {"a": np.arange(5, dtype=np.float32), "row_ptr": np.array([0, 2, 2, 5], dtype=np.int32)}
    mutation = Mutation.draw(original, 64, np.random.default_rng(3), keep={"row_ptr"})
    assert set(mutation.changes) == {"a"}
    seen = mutation.applied_to(original)
    assert np.array_equal(seen["row_ptr"], original["row_ptr"]) and not np.array_equal(seen["a"], original["a"])


# ---- bounds on times -----------------------------------------------------------------------------

def test_gpu_event_times_are_raised_to_the_parents_clock_minus_the_calibrated_cost():
    bound = overhead_bound([0.02, 0.02, 3.0, 0.03, 0.02, 5.0])  # two empty calls waited for a CPU
    assert bound == pytest.approx(0.02 * 2 + 0.05)
    times, problem = gpu_times([1.0, 1.0, 1.0, 0.2], [1.03, 1.04, 1.05, 1.5], bound)
    assert problem is None
    assert times == [1.0, 1.0, 1.0, pytest.approx(1.5 - bound)]  # a forged or delayed run: what we saw


def test_forged_gpu_event_times_are_refused():
    forged = [t / 20 for t in (1.0, 1.1, 0.9)]
    times, problem = gpu_times(forged, [1.04, 1.15, 0.95], overhead_bound([0.02] * 5))
    assert times == [] and problem is not None and "GPU events measured 0.0500 ms per call" in problem
    # Calls that waited for a CPU do not hide a forgery: the quickest calls decide.
    waits = [9.0, 8.0, 7.5, 9.5, 8.8, 7.7, 9.9, 8.1]
    _, mixed = gpu_times([t / 20 for t in [1.0] * 4 + waits], [1.04] * 4 + waits, 0.07)
    assert mixed is not None and "(the quickest calls)" in mixed
    honest, fine = gpu_times([1.0] * 4 + [w - 7 for w in waits], [1.04] * 4 + waits, 0.07)
    assert fine is None and honest[:4] == [1.0] * 4
    _, longer = gpu_times([5.0, 5.0, 5.0], [1.0, 1.0, 1.0], 0.05)
    assert longer == "a call timed at 5.0000 ms by GPU events took only 1.0000 ms by the judge's clock"


def test_calls_on_fresh_inputs_much_slower_than_the_timed_runs_are_refused():
    runs = [1.0, 9.1, 0.9, 7.0]  # two runs that waited for a CPU
    assert fresh_anomaly(runs, [1.0, 1.2]) is None
    assert fresh_anomaly(runs, [9.0, 1.2]) is None  # one preempted call is no verdict
    assert fresh_anomaly(runs, [2.74, 2.74]) is None  # within 3x the fastest run + 0.05 ms
    assert fresh_anomaly(runs, [9.0, 8.0]) == (
        "calls on fresh inputs took 9.0000 and 8.0000 ms but calls on slightly changed inputs timed beside them "
        "0.9000 ms (the fastest): the work must not be carried over from earlier calls")


def test_a_time_beyond_what_any_device_can_do_is_refused():
    assert "beyond any host device" in implausible("host", 0.001, 12 << 20, 1 << 20)
    assert implausible("host", 1.0, 12 << 20, 1 << 20) is None
    assert implausible("hip", 0.0, 1, 1) == "a timed run took no time at all"


# ---- how a child ended ---------------------------------------------------------------------------

TINY = Case("tiny", ("host", "gpu"), {"n": 5})
ENDINGS = {
    "timed_out": (Outcome(None, 9, True, False, 3.0, ""), "TIME_LIMIT_EXCEEDED",
                  "within the 30 s limit in case 'tiny'"),
    "cancelled": (Outcome(None, 9, False, True, 1.0, ""), "CANCELLED", "cancelled"),
    "segfault": (Outcome(139, 11, False, False, 1.0, ""), "RUNTIME_ERROR", "SIGSEGV"),
    "killed": (Outcome(-9, 9, False, False, 1.0, ""), "RUNTIME_ERROR", "SIGKILL"),
    "exit_zero": (Outcome(0, None, False, False, 1.0, ""), "RUNTIME_ERROR", "before solution() returned"),
    "exit_code": (Outcome(5, None, False, False, 1.0, ""), "RUNTIME_ERROR", "exited with code 5 in case 'tiny'"),
    "emulator_fault": (Outcome(86, None, False, False, 1.0, "noise\nhjemu: out-of-bounds write of device buffer "
                                                               "'c'\n"),
                       "RUNTIME_ERROR", "the kernel faulted in case 'tiny': out-of-bounds write of device buffer 'c'"),
    # The sandbox's cgroup saw it: the memory cap killed it, or refused its threads before it crashed.
    "memory_limit": (Outcome(-9, 9, False, False, 1.0, "", oom_killed=True), "RUNTIME_ERROR",
                     "the program ran out of memory in case 'tiny': it went over the memory limit of 4096 MiB"),
    "too_many_threads": (Outcome(134, 6, False, False, 1.0, "", pids_refused=True), "RUNTIME_ERROR",
                         "the program tried to start too many threads in case 'tiny' (the limit is 64 threads and "
                         "processes); the sandbox refused them, and then the program crashed: aborted (SIGABRT)"),
}


@pytest.mark.parametrize("name", list(ENDINGS), ids=list(ENDINGS))
def test_an_early_end_of_the_child_is_classified(name, tmp_path):
    device = "emulated-hip" if name == "emulator_fault" else "host"
    job = JobContext(problem=load_problem("vector-add"), device=device, sandbox=Sandbox(), job_dir=tmp_path,
                     limits=ResourceLimits(), secret=b"k" * 48, emit=lambda *_: None, cancel=threading.Event(),
                     libraries=[])
    phase = Phase(kind="test", cases=[TINY], job=job)
    phase._current = 0
    outcome, status, reason = ENDINGS[name]
    phase._classify_end(outcome)
    assert phase.result.status == status and reason in phase.result.reason, phase.result.reason

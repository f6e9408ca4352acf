"""`python -m agent serve` in a subprocess with the real judge and sandbox: a real vector-add job,
hip on the emulated device, cancel killing a sandboxed infinite loop, SIGTERM, refusal to start
without a sandbox (and judging without one when told). The HTTP client is test_server.py's.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.agent.test_server import (
    ROOT,
    TOKEN,
    call,
    job_request,
    wait_for_result,
    wait_until,
)

INFINITE_LOOP_CPP = """\
#include <cstddef>
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    volatile size_t spin = 0;
    for (;;) { spin = spin + 1; }
}
"""


# ---- `python -m agent serve` with the real judge -----------------------------------------------
class ServedAgent:
    def __init__(self, tmp: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.token_file = tmp / "token"
        if not self.token_file.exists():
            self.token_file.write_text(TOKEN + "\n")
        self.stderr_path = tmp / "agent.stderr"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "agent", "serve", "--host", "127.0.0.1", "--port", "0",
             "--token-file", str(self.token_file), "--workdir", str(tmp / "work"), "--device", "host",
             *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.stderr_path.open("wb"), text=True,
            env={**os.environ, **(env or {})}, start_new_session=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read_stdout, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_listening(self, timeout: float = 60) -> tuple[str, int]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no listening line; stderr: {self.stderr()}") from None
        assert line.startswith("agent listening on http://127.0.0.1:"), line
        return "127.0.0.1", int(line.rsplit(":", 1)[1])

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    agent = ServedAgent(tmp_path_factory.mktemp("served"))
    agent.base = agent.wait_listening()  # type: ignore[attr-defined]
    yield agent
    agent.stop()
    assert TOKEN not in agent.stderr()


def descendants(pid: int) -> set[int]:
    """Live (non-zombie) processes below `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def sandboxed_children(agent_pid: int) -> set[int]:
    """The agent's descendants, once one of them is the harness child running the user's code."""
    below = descendants(agent_pid)
    for pid in below:
        try:
            if b"agent.harness.child" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return below
        except OSError:
            continue
    return set()


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.integration
@pytest.mark.timeout(120)
class TestServedAgent:
    def test_health_reports_device_sandbox_toolchains_and_protocol(self, served):
        status, body, _ = call(served.base, "GET", "/v1/health")
        assert status == 200
        assert body["device"] == "host"
        assert body["protocol"] == 1
        assert body["busy"] is False
        assert body["sandbox"] in ("bwrap", "docker")
        assert body["insecure"] is False
        assert "cpp" in body["toolchains"]
        # No GPU here: hip and cuda are checked on the emulated device, within its size budget, and
        # triton in Triton's interpreter.
        assert body["emulated"] == ["hip", "cuda", "triton"]
        assert body["triton"].startswith("3.9")
        assert body["emulator"] == {"max_case_bytes": 256 * 1024 * 1024}

    def test_hip_on_the_emulated_device_checks_and_refuses_benchmarks(self, served):
        hip = (ROOT / "problems" / "vector-add" / "solutions" / "hip.hip").read_text()
        for mode in ("benchmark", "leaderboard"):
            status, body, _ = call(served.base, "POST", "/v1/jobs",
                                   {**job_request(f"emu-{mode}", source=hip, mode=mode), "language": "hip"})
            assert status == 400, body
            assert body["extra"]["field"] == "mode", body
            assert body["message"] == ("mode: benchmark mode needs a real GPU: the emulated device runs check mode "
                                       "only (emulated times mean nothing)")
        request = {**job_request("emu-check", source=hip, mode="check"), "language": "hip"}
        assert call(served.base, "POST", "/v1/jobs", request)[0] == 202
        result = wait_for_result(served.base, "emu-check", 100)[-1]["payload"]
        assert result["status"] == "CHECKED", result
        assert result["reason"] == "all 5 tests passed on the emulated device (CPU)"
        assert result["summary"]["device"] == "emulated"

    def test_a_real_vector_add_benchmark_is_accepted(self, served):
        status, job, _ = call(served.base, "POST", "/v1/jobs", job_request("real-bench", mode="benchmark"))
        assert status == 202
        assert job["id"] == "real-bench"
        events = wait_for_result(served.base, "real-bench", 100)
        types = [e["type"] for e in events]
        assert types[-1] == "RESULT"
        assert types.count("RESULT") == 1
        result = events[-1]["payload"]
        assert result["status"] == "ACCEPTED", result
        assert result["reason"]
        assert result["score_ms"] > 0
        assert "TEST_RESULT" in types
        assert "BENCHMARK_RESULT" in types
        statuses = [e["payload"]["status"] for e in events if e["type"] == "STATUS"]
        assert statuses[:1] == ["COMPILING"]
        assert "BENCHMARKING" in statuses
        assert call(served.base, "GET", "/v1/jobs/real-bench")[1]["state"] == "finished"

    def test_busy_resume_idempotency_and_cancel_on_a_real_sandboxed_loop(self, served):
        base, agent_pid = served.base, served.process.pid
        request = job_request("real-loop", source=INFINITE_LOOP_CPP, limits={"check_s": 60})
        assert call(base, "POST", "/v1/jobs", request)[0] == 202
        assert wait_until(lambda: call(base, "GET", "/v1/jobs/real-loop")[1]["status"] == "CHECKING", 60)
        sandboxed = wait_until(lambda: sandboxed_children(agent_pid), 10)
        assert sandboxed, "no sandboxed harness below the agent"

        status, body, _ = call(base, "POST", "/v1/jobs", job_request("real-other"))
        assert status == 409
        assert body["extra"]["job_id"] == "real-loop"
        status, body, _ = call(base, "POST", "/v1/jobs", request)
        assert status == 200
        assert body["state"] == "running"

        seen = call(base, "GET", "/v1/jobs/real-loop/events")[1]["events"]
        status, body, _ = call(base, "DELETE", "/v1/jobs/real-loop")
        assert status in (200, 202)
        assert body["cancel_requested"] is True
        assert wait_until(lambda: not any(alive(p) for p in sandboxed), 5), \
            f"still alive after cancel: {[p for p in sandboxed if alive(p)]}"
        events = wait_for_result(base, "real-loop", 10)
        assert events[-1]["payload"]["status"] == "CANCELLED", events[-1]
        later = call(base, "GET", f"/v1/jobs/real-loop/events?after={len(seen)}")[1]["events"]
        assert later == events[len(seen):]
        assert call(base, "GET", "/v1/health")[1]["busy"] is False


@pytest.mark.integration
@pytest.mark.timeout(60)
class TestServeStartup:
    def test_it_refuses_to_start_without_a_sandbox(self, tmp_path):
        agent = ServedAgent(tmp_path, env={"HIPJUDGE_SANDBOX": "none"})
        try:
            assert agent.process.wait(30) != 0
        finally:
            agent.stop()
        assert "--insecure-no-sandbox" in agent.stderr()
        assert agent.lines.empty()

    def test_it_starts_without_a_sandbox_when_told_says_so_and_judges(self, tmp_path):
        agent = ServedAgent(tmp_path, "--insecure-no-sandbox", env={"HIPJUDGE_SANDBOX": "none"})
        try:
            base = agent.wait_listening()
            body = call(base, "GET", "/v1/health")[1]
            assert body["insecure"] is True
            assert body["sandbox"] == "none"
            # The compile's and the run's private boxes are plain directories here (no mount namespace).
            assert call(base, "POST", "/v1/jobs", job_request("insecure-check"))[0] == 202
            result = wait_for_result(base, "insecure-check", 50)[-1]["payload"]
            assert result["status"] == "CHECKED", result
        finally:
            agent.stop()
        assert agent.process.returncode == 0

    def test_sigterm_cancels_the_running_job_and_kills_its_sandbox(self, tmp_path):
        agent = ServedAgent(tmp_path)
        try:
            base = agent.wait_listening()
            request = job_request("term-loop", source=INFINITE_LOOP_CPP, limits={"check_s": 60})
            assert call(base, "POST", "/v1/jobs", request)[0] == 202
            sandboxed = wait_until(lambda: sandboxed_children(agent.process.pid), 40)
            assert sandboxed
            agent.process.send_signal(signal.SIGTERM)
            assert agent.process.wait(15) == 0
            assert wait_until(lambda: not any(alive(p) for p in sandboxed), 5)
        finally:
            agent.stop()

    @pytest.mark.parametrize("content", [None, "", "  \n"])
    def test_it_refuses_to_start_without_a_token(self, tmp_path, content):
        token_file = tmp_path / "token"
        if content is not None:
            token_file.write_text(content)
        else:
            token_file = tmp_path / "missing"
        result = subprocess.run(
            [sys.executable, "-m", "agent", "serve", "--port", "0", "--token-file", str(token_file),
             "--workdir", str(tmp_path / "work")],
            cwd=ROOT, capture_output=True, text=True, timeout=30,
        )
        assert result.returncode != 0
        assert "token file" in result.stderr
        assert "listening" not in result.stdout

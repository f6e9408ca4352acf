"""Agent protocol v1 over real HTTP.

Two kinds of server: an in-process one with a scripted judge (fast, deterministic protocol
mechanics: busy, idempotency, resume, cancel, bad requests) and `python -m agent serve` in a
subprocess with the real judge and sandbox (a real vector-add job, cancel killing a sandboxed
infinite loop, refusal to start without a sandbox).
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from agent.jobs import JobManager, json_safe
from agent.problems import load_problem_dir
from agent.server import AgentServer

ROOT = Path(__file__).resolve().parents[2]
VECTOR_ADD = ROOT / "problems" / "vector-add"
TOKEN = "s3cret-agent-token-for-tests"
INFINITE_LOOP_CPP = """\
#include <cstddef>
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    volatile size_t spin = 0;
    for (;;) { spin = spin + 1; }
}
"""


# ---- HTTP client -------------------------------------------------------------------------------
def call(base: tuple[str, int], method: str, path: str, body: Any = None, *, token: str | None = TOKEN,
         raw: bytes | None = None, headers: dict[str, str] | None = None,
         timeout: float = 15) -> tuple[int, dict, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection(*base, timeout=timeout)
    try:
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["X-Agent-Token"] = token
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            all_headers.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        payload = response.read()
        assert response.getheader("Content-Type") == "application/json", payload[:200]
        return response.status, json.loads(payload), response
    finally:
        conn.close()


def job_request(job_id: str, source: str | None = None, mode: str = "check", **extra: Any) -> dict:
    return {
        "id": job_id,
        "problem": load_problem_dir(VECTOR_ADD).to_bundle(),
        "language": "cpp",
        "source": source if source is not None else (VECTOR_ADD / "solutions" / "cpp.cpp").read_text(),
        "mode": mode,
        "seed": 1,
        **extra,
    }


def wait_for_result(base: tuple[str, int], job_id: str, deadline_s: float) -> list[dict]:
    """Poll the events like the platform does (resuming with after=N) until the final RESULT."""
    events: list[dict] = []
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        status, body, _ = call(base, "GET", f"/v1/jobs/{job_id}/events?after={len(events)}&wait=2")
        assert status == 200, body
        assert [e["seq"] for e in body["events"]] == list(range(len(events) + 1, len(events) + 1 +
                                                                len(body["events"])))
        events += body["events"]
        if events and events[-1]["type"] == "RESULT":
            return events
    raise AssertionError(f"no RESULT within {deadline_s} s; got {[e['type'] for e in events]}")


def wait_until(predicate: Any, timeout: float, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


# ---- in-process server with a scripted judge ---------------------------------------------------
class ScriptedJudge:
    """Compiles instantly, then holds in CHECKING until released or cancelled."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls: list[str] = []
        self.crash = False
        self.ignore_cancel = False
        self.test_seconds: Any = 0.0

    def __call__(self, spec: Any, config: Any, emit: Any, cancel: threading.Event) -> None:
        self.calls.append(spec.id)
        if self.crash:
            raise RuntimeError("scripted crash")
        emit("STATUS", {"status": "COMPILING"})
        emit("COMPILE_RESULT", {"ok": True, "output": "", "cached": False, "seconds": 0.01})
        emit("STATUS", {"status": "CHECKING"})
        deadline = time.monotonic() + 30
        while not (self.release.is_set() or cancel.is_set() and not self.ignore_cancel) \
                and time.monotonic() < deadline:
            time.sleep(0.01)
        if cancel.is_set():
            emit("RESULT", {"status": "CANCELLED", "reason": "cancelled", "score_ms": None, "summary": {}})
            return
        emit("TEST_RESULT", {"case": "n=1", "index": 0, "total": 1, "passed": True, "message": "",
                             "seconds": self.test_seconds})
        emit("RESULT", {"status": "CHECKED", "reason": "All 1 tests passed.", "score_ms": None,
                        "summary": {}})


@pytest.fixture
def scripted(tmp_path: Path):
    judge = ScriptedJudge()
    config = SimpleNamespace(workdir=tmp_path, device="host", arch=None,
                             sandbox=SimpleNamespace(mode="bwrap", secure=True))
    manager = JobManager(config, judge_fn=judge, heartbeat_seconds=0.2,  # type: ignore[arg-type]
                         cancel_wait_seconds=1.0)
    server = AgentServer(("127.0.0.1", 0), token=TOKEN, manager=manager,
                         health=lambda: {"device": "host", "arch": None, "sandbox": "bwrap",
                                         "insecure": False})
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    yield SimpleNamespace(base=server.server_address[:2], judge=judge, manager=manager)
    judge.release.set()
    manager.shutdown()
    server.shutdown()
    server.server_close()
    thread.join(5)


def post_and_wait_running(base: tuple[str, int], job_id: str) -> dict:
    status, job, _ = call(base, "POST", "/v1/jobs", job_request(job_id))
    assert status == 202, job
    assert wait_until(lambda: call(base, "GET", f"/v1/jobs/{job_id}")[1]["status"] == "CHECKING", 10)
    return job


@pytest.mark.timeout(30)
class TestAuth:
    def test_it_refuses_a_request_without_a_token(self, scripted):
        for method, path in (("GET", "/v1/health"), ("GET", "/v1/jobs/x"), ("GET", "/v1/nowhere")):
            status, body, _ = call(scripted.base, method, path, token=None)
            assert status == 401
            assert "X-Agent-Token" in body["message"]
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", job_request("no-token"), token=None)
        assert status == 401
        assert scripted.judge.calls == []

    def test_it_refuses_a_wrong_token_and_never_echoes_it(self, scripted):
        for wrong in ("wrong", TOKEN[:-1] + "X", TOKEN + "X", ""):
            status, body, response = call(scripted.base, "GET", "/v1/health", token=wrong)
            assert status == 401, wrong
            assert TOKEN not in json.dumps(body) and TOKEN not in str(response.getheaders())

    def test_it_accepts_the_right_token(self, scripted):
        status, body, _ = call(scripted.base, "GET", "/v1/health")
        assert status == 200
        assert body["protocol"] == 1 and body["busy"] is False and body["job"] is None
        assert body["uptime_s"] >= 0 and body["device"] == "host"


@pytest.mark.timeout(30)
class TestJobs:
    def test_a_repeated_post_returns_the_same_job_even_with_another_body(self, scripted):
        first = post_and_wait_running(scripted.base, "job-1")
        status, again, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-1", source="garbage"))
        assert status == 200
        assert again["id"] == first["id"] and again["created_at"] == first["created_at"]
        assert again["state"] == "running" and again["status"] == "CHECKING"
        scripted.judge.release.set()
        wait_until(lambda: call(scripted.base, "GET", "/v1/jobs/job-1")[1]["state"] == "finished", 10)
        status, finished, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-1"))
        assert status == 200 and finished["state"] == "finished" and finished["result"]["status"] == "CHECKED"
        assert scripted.judge.calls == ["job-1"]

    def test_it_answers_409_while_busy_and_accepts_the_next_job_after(self, scripted):
        post_and_wait_running(scripted.base, "job-a")
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-b"))
        assert status == 409
        assert body["message"] == "busy with job job-a" and body["extra"]["job_id"] == "job-a"
        health = call(scripted.base, "GET", "/v1/health")[1]
        assert health["busy"] is True and health["job"] == "job-a"
        scripted.judge.release.set()
        wait_for_result(scripted.base, "job-a", 10)
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-b"))
        assert status == 202 and body["id"] == "job-b"

    def test_events_resume_after_n_with_only_later_events(self, scripted):
        post_and_wait_running(scripted.base, "job-r")
        status, body, _ = call(scripted.base, "GET", "/v1/jobs/job-r/events")
        first = body["events"]
        assert status == 200 and [e["type"] for e in first[:3]] == ["STATUS", "COMPILE_RESULT", "STATUS"]
        assert all(set(e) == {"seq", "type", "payload", "at"} and e["at"].endswith("Z") for e in first)
        n = first[-1]["seq"]
        scripted.judge.release.set()
        events = first + wait_for_result(scripted.base, "job-r", 10)[n:]
        status, later, _ = call(scripted.base, "GET", f"/v1/jobs/job-r/events?after={n}")
        assert [e["seq"] for e in later["events"]] == list(range(n + 1, events[-1]["seq"] + 1))
        assert later["events"][-1]["type"] == "RESULT" and later["job"]["state"] == "finished"
        status, empty, _ = call(scripted.base, "GET", f"/v1/jobs/job-r/events?after={events[-1]['seq']}")
        assert empty["events"] == [] and empty["job"]["last_seq"] == events[-1]["seq"]
        status, body, _ = call(scripted.base, "GET", "/v1/jobs/job-r/events?after=-1")
        assert status == 400 and body["extra"]["field"] == "after"

    def test_a_long_poll_returns_as_soon_as_an_event_arrives(self, scripted):
        post_and_wait_running(scripted.base, "job-w")
        last = call(scripted.base, "GET", "/v1/jobs/job-w/events")[1]["job"]["last_seq"]
        threading.Timer(0.3, scripted.judge.release.set).start()
        started = time.monotonic()
        body = call(scripted.base, "GET", f"/v1/jobs/job-w/events?after={last}&wait=20")[1]
        assert body["events"] and time.monotonic() - started < 5

    def test_heartbeats_arrive_while_a_job_runs(self, scripted):
        post_and_wait_running(scripted.base, "job-h")
        assert wait_until(lambda: any(e["type"] == "HEARTBEAT" for e in call(
            scripted.base, "GET", "/v1/jobs/job-h/events")[1]["events"]), 5)

    def test_delete_cancels_the_job(self, scripted):
        post_and_wait_running(scripted.base, "job-c")
        status, body, _ = call(scripted.base, "DELETE", "/v1/jobs/job-c")
        assert status == 200 and body["state"] == "cancelled" and body["result"]["status"] == "CANCELLED"
        assert call(scripted.base, "GET", "/v1/health")[1]["busy"] is False
        status, again, _ = call(scripted.base, "DELETE", "/v1/jobs/job-c")  # a repeat changes nothing
        assert status == 200 and again["state"] == "cancelled"

    def test_a_cancel_the_judge_has_not_finished_yet_is_202_then_ends_cancelled(self, scripted):
        scripted.judge.ignore_cancel = True  # a judge busy killing a slow sandbox
        post_and_wait_running(scripted.base, "job-slow")
        status, body, _ = call(scripted.base, "DELETE", "/v1/jobs/job-slow")
        assert status == 202 and body["state"] == "running" and body["cancel_requested"] is True
        scripted.judge.release.set()
        events = wait_for_result(scripted.base, "job-slow", 10)
        assert events[-1]["payload"]["status"] == "CANCELLED"  # the released judge sees cancel set

    def test_a_crashing_judge_gives_result_error_and_the_agent_goes_on(self, scripted, capsys):
        scripted.judge.crash = True
        call(scripted.base, "POST", "/v1/jobs", job_request("job-x"))
        events = wait_for_result(scripted.base, "job-x", 10)
        assert events[-1]["payload"]["status"] == "ERROR"
        assert "RuntimeError: scripted crash" in events[-1]["payload"]["reason"]
        scripted.judge.crash = False
        assert call(scripted.base, "POST", "/v1/jobs", job_request("job-y"))[0] == 202

    def test_payloads_strict_json_cannot_carry_still_reach_the_poller(self, scripted):
        scripted.judge.test_seconds = np.float64("nan")
        scripted.judge.release.set()
        call(scripted.base, "POST", "/v1/jobs", job_request("job-nan"))
        events = wait_for_result(scripted.base, "job-nan", 10)
        test = next(e for e in events if e["type"] == "TEST_RESULT")
        assert test["payload"]["seconds"] is None
        assert json_safe({"runs": np.int64(3), "ms": np.float32(1.5), "inf": float("inf"),
                          "cases": ({"x": 1},)}) == {"runs": 3, "ms": 1.5, "inf": None, "cases": [{"x": 1}]}

    def test_unknown_jobs_are_404(self, scripted):
        for method, path in (("GET", "/v1/jobs/nope"), ("GET", "/v1/jobs/nope/events"),
                             ("DELETE", "/v1/jobs/nope")):
            status, body, _ = call(scripted.base, method, path)
            assert status == 404 and "nope" in body["message"], (method, path)

    def test_only_the_last_finished_jobs_are_kept(self, tmp_path):
        judge = ScriptedJudge()
        judge.release.set()
        manager = JobManager(SimpleNamespace(), judge_fn=judge, keep_finished=2)  # type: ignore[arg-type]
        for i in range(4):
            job, created = manager.submit(job_request(f"k{i}"))
            assert created and job.done.wait(5)
        manager.submit(job_request("k4"))[0].done.wait(5)
        assert [manager.get(f"k{i}") is not None for i in range(5)] == [False, False, False, True, True]


@pytest.mark.timeout(30)
class TestBadRequests:
    def test_a_huge_content_length_is_refused_before_the_body_is_read(self, scripted):
        with socket.create_connection(scripted.base, timeout=5) as sock:
            sock.sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Agent-Token: " + TOKEN.encode() +
                         b"\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{")
            started = time.monotonic()
            response = b""
            while b"\r\n\r\n" not in response or not response.rstrip().endswith(b"}"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                response += chunk
        assert time.monotonic() - started < 3
        head, _, payload = response.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 413") and b"application/json" in head
        assert json.loads(payload)["extra"]["limit_bytes"] == 2 * 1024 * 1024

    def test_an_oversized_body_sent_in_full_gets_413_json(self, scripted):
        big = job_request("big", source="x" * (3 * 1024 * 1024))
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", big)
        assert status == 413 and "limit" in body["message"]
        assert scripted.judge.calls == []

    def test_a_missing_content_length_is_411(self, scripted):
        with socket.create_connection(scripted.base, timeout=5) as sock:
            sock.sendall(b"POST /v1/jobs HTTP/1.0\r\nX-Agent-Token: " + TOKEN.encode() + b"\r\n\r\n")
            response = sock.makefile("rb").read()
        assert response.startswith(b"HTTP/1.0 411")
        assert "Content-Length" in json.loads(response.partition(b"\r\n\r\n")[2])["message"]

    @pytest.mark.parametrize("raw", [b"{not json", b'{"id": "a",}', b"\xff\xfe", b'{"x": NaN}', b""])
    def test_malformed_json_is_400_json(self, scripted, raw):
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", raw=raw)
        assert status == 400 and body["message"].startswith("malformed JSON") and "extra" in body
        assert "Traceback" not in json.dumps(body)

    @pytest.mark.parametrize("field", ["id", "problem", "language", "source"])
    def test_a_missing_field_is_400_naming_it(self, scripted, field):
        request = job_request("fields")
        del request[field]
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", request)
        assert status == 400 and body["message"].startswith(f"{field}:"), body
        assert body["extra"]["field"] == field
        assert scripted.judge.calls == []

    @pytest.mark.parametrize(("field", "value"), [("mode", "fast"), ("language", "rust"), ("seed", "7"),
                                                  ("limits", {"check_s": -1}), ("id", "x" * 65)])
    def test_an_invalid_field_is_400_naming_it(self, scripted, field, value):
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", job_request("fields", **{field: value}))
        assert status == 400 and body["message"].startswith(field), body

    def test_a_body_that_is_not_an_object_is_400(self, scripted):
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", [1, 2])
        assert status == 400 and body["message"]

    def test_unknown_paths_are_404_and_wrong_methods_405(self, scripted):
        assert call(scripted.base, "GET", "/v2/health")[0] == 404
        assert call(scripted.base, "GET", "/v1/jobs/a/b/c")[0] == 404
        status, body, response = call(scripted.base, "DELETE", "/v1/health")
        assert status == 405 and response.getheader("Allow") == "GET" and body["extra"]["allowed"] == ["GET"]
        assert call(scripted.base, "PUT", "/v1/jobs", {})[0] == 405
        status, body, _ = call(scripted.base, "BREW", "/v1/health")  # a method http.server does not know
        assert status == 501 and body["message"]

    def test_an_unexpected_error_is_500_json_without_a_traceback(self, scripted, monkeypatch):
        def explode(*_: Any, **__: Any) -> None:
            raise KeyError("secret internals")

        monkeypatch.setattr(scripted.manager, "describe", explode)
        status, body, _ = call(scripted.base, "GET", "/v1/jobs/any")
        text = json.dumps(body)
        assert status == 500 and "secret internals" not in text and "Traceback" not in text


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
            if b"agent.child" in Path(f"/proc/{pid}/cmdline").read_bytes():
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
        assert body["device"] == "host" and body["protocol"] == 1 and body["busy"] is False
        assert body["sandbox"] in ("bwrap", "docker") and body["insecure"] is False
        assert "cpp" in body["toolchains"]

    def test_a_real_vector_add_benchmark_is_accepted(self, served):
        status, job, _ = call(served.base, "POST", "/v1/jobs", job_request("real-bench", mode="benchmark"))
        assert status == 202 and job["id"] == "real-bench"
        events = wait_for_result(served.base, "real-bench", 100)
        types = [e["type"] for e in events]
        assert types[-1] == "RESULT" and types.count("RESULT") == 1
        result = events[-1]["payload"]
        assert result["status"] == "ACCEPTED", result
        assert result["reason"] and result["score_ms"] > 0
        assert "TEST_RESULT" in types and "BENCHMARK_RESULT" in types
        statuses = [e["payload"]["status"] for e in events if e["type"] == "STATUS"]
        assert statuses[:1] == ["COMPILING"] and "BENCHMARKING" in statuses
        assert call(served.base, "GET", "/v1/jobs/real-bench")[1]["state"] == "finished"

    def test_busy_resume_idempotency_and_cancel_on_a_real_sandboxed_loop(self, served):
        base, agent_pid = served.base, served.process.pid
        request = job_request("real-loop", source=INFINITE_LOOP_CPP, limits={"check_s": 60})
        assert call(base, "POST", "/v1/jobs", request)[0] == 202
        assert wait_until(lambda: call(base, "GET", "/v1/jobs/real-loop")[1]["status"] == "CHECKING", 60)
        sandboxed = wait_until(lambda: sandboxed_children(agent_pid), 10)
        assert sandboxed, "no sandboxed harness below the agent"

        status, body, _ = call(base, "POST", "/v1/jobs", job_request("real-other"))
        assert status == 409 and body["extra"]["job_id"] == "real-loop"
        status, body, _ = call(base, "POST", "/v1/jobs", request)
        assert status == 200 and body["state"] == "running"

        seen = call(base, "GET", "/v1/jobs/real-loop/events")[1]["events"]
        status, body, _ = call(base, "DELETE", "/v1/jobs/real-loop")
        assert status in (200, 202) and body["cancel_requested"] is True
        assert wait_until(lambda: not any(alive(p) for p in sandboxed), 5), \
            f"still alive after cancel: {[p for p in sandboxed if alive(p)]}"
        events = wait_for_result(base, "real-loop", 10)
        assert events[-1]["payload"]["status"] == "CANCELLED"
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

    def test_it_starts_without_a_sandbox_when_told_and_says_so(self, tmp_path):
        agent = ServedAgent(tmp_path, "--insecure-no-sandbox", env={"HIPJUDGE_SANDBOX": "none"})
        try:
            base = agent.wait_listening()
            body = call(base, "GET", "/v1/health")[1]
            assert body["insecure"] is True and body["sandbox"] == "none"
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
        assert result.returncode != 0 and "token file" in result.stderr and "listening" not in result.stdout

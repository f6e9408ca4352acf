"""Agent protocol v1 over real HTTP, against an in-process server with a scripted judge (fast,
deterministic protocol mechanics: busy, idempotency, resume, cancel, bad requests). The client
helpers here serve test_served_agent.py too, where `python -m agent serve` runs the real judge.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from agent.judging.jobs import JobManager
from agent.problems.bundle import load_problem_dir
from agent.protocol import json_safe
from agent.server import AgentServer

ROOT = Path(__file__).resolve().parents[2]
VECTOR_ADD = ROOT / "problems" / "vector-add"
TOKEN = "s3cret-agent-token-for-tests"


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
            assert TOKEN not in json.dumps(body)
            assert TOKEN not in str(response.getheaders())

    def test_it_accepts_the_right_token(self, scripted):
        status, body, _ = call(scripted.base, "GET", "/v1/health")
        assert status == 200
        assert body["protocol"] == 1
        assert body["busy"] is False
        assert body["job"] is None
        assert body["uptime_s"] >= 0
        assert body["device"] == "host"


@pytest.mark.timeout(30)
class TestJobs:
    def test_a_repeated_post_returns_the_same_job_even_with_another_body(self, scripted):
        first = post_and_wait_running(scripted.base, "job-1")
        status, again, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-1", source="garbage"))
        assert status == 200
        assert again["id"] == first["id"]
        assert again["created_at"] == first["created_at"]
        assert again["state"] == "running"
        assert again["status"] == "CHECKING"
        scripted.judge.release.set()
        wait_until(lambda: call(scripted.base, "GET", "/v1/jobs/job-1")[1]["state"] == "finished", 10)
        status, finished, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-1"))
        assert status == 200
        assert finished["state"] == "finished"
        assert finished["result"]["status"] == "CHECKED"
        assert scripted.judge.calls == ["job-1"]

    def test_it_answers_409_while_busy_and_accepts_the_next_job_after(self, scripted):
        post_and_wait_running(scripted.base, "job-a")
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-b"))
        assert status == 409
        assert body["message"] == "busy with job job-a"
        assert body["extra"]["job_id"] == "job-a"
        health = call(scripted.base, "GET", "/v1/health")[1]
        assert health["busy"] is True
        assert health["job"] == "job-a"
        scripted.judge.release.set()
        wait_for_result(scripted.base, "job-a", 10)
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", job_request("job-b"))
        assert status == 202
        assert body["id"] == "job-b"

    def test_events_resume_after_n_with_only_later_events(self, scripted):
        post_and_wait_running(scripted.base, "job-r")
        status, body, _ = call(scripted.base, "GET", "/v1/jobs/job-r/events")
        first = body["events"]
        assert status == 200
        assert [e["type"] for e in first[:3]] == ["STATUS", "COMPILE_RESULT", "STATUS"]
        assert all(set(e) == {"seq", "type", "payload", "at"} and e["at"].endswith("Z") for e in first)
        n = first[-1]["seq"]
        scripted.judge.release.set()
        events = first + wait_for_result(scripted.base, "job-r", 10)[n:]
        status, later, _ = call(scripted.base, "GET", f"/v1/jobs/job-r/events?after={n}")
        assert [e["seq"] for e in later["events"]] == list(range(n + 1, events[-1]["seq"] + 1))
        assert later["events"][-1]["type"] == "RESULT"
        assert later["job"]["state"] == "finished"
        status, empty, _ = call(scripted.base, "GET", f"/v1/jobs/job-r/events?after={events[-1]['seq']}")
        assert empty["events"] == []
        assert empty["job"]["last_seq"] == events[-1]["seq"]
        status, body, _ = call(scripted.base, "GET", "/v1/jobs/job-r/events?after=-1")
        assert status == 400
        assert body["extra"]["field"] == "after"

    def test_a_long_poll_returns_as_soon_as_an_event_arrives(self, scripted):
        post_and_wait_running(scripted.base, "job-w")
        last = call(scripted.base, "GET", "/v1/jobs/job-w/events")[1]["job"]["last_seq"]
        threading.Timer(0.3, scripted.judge.release.set).start()
        # The poll asks for the longest wait there is (30 s); the client gives up well before it
        # (its socket timeout), so a poll that sat out its wait instead of returning on the new
        # event fails here, whatever the machine's load: nothing below measures time.
        body = call(scripted.base, "GET", f"/v1/jobs/job-w/events?after={last}&wait=30", timeout=25)[1]
        assert body["events"]
        assert all(e["seq"] > last for e in body["events"])

    def test_heartbeats_arrive_while_a_job_runs(self, scripted):
        post_and_wait_running(scripted.base, "job-h")
        assert wait_until(lambda: any(e["type"] == "HEARTBEAT" for e in call(
            scripted.base, "GET", "/v1/jobs/job-h/events")[1]["events"]), 5)

    def test_delete_cancels_the_job(self, scripted):
        post_and_wait_running(scripted.base, "job-c")
        status, body, _ = call(scripted.base, "DELETE", "/v1/jobs/job-c")
        assert status == 200
        assert body["state"] == "cancelled"
        assert body["result"]["status"] == "CANCELLED"
        assert call(scripted.base, "GET", "/v1/health")[1]["busy"] is False
        status, again, _ = call(scripted.base, "DELETE", "/v1/jobs/job-c")  # a repeat changes nothing
        assert status == 200
        assert again["state"] == "cancelled"

    def test_a_cancel_the_judge_has_not_finished_yet_is_202_then_ends_cancelled(self, scripted):
        scripted.judge.ignore_cancel = True  # a judge busy killing a slow sandbox
        post_and_wait_running(scripted.base, "job-slow")
        status, body, _ = call(scripted.base, "DELETE", "/v1/jobs/job-slow")
        assert status == 202
        assert body["state"] == "running"
        assert body["cancel_requested"] is True
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
            assert status == 404, (method, path)
            assert "nope" in body["message"], (method, path)

    def test_only_the_last_finished_jobs_are_kept(self, tmp_path):
        judge = ScriptedJudge()
        judge.release.set()
        manager = JobManager(SimpleNamespace(), judge_fn=judge, keep_finished=2)  # type: ignore[arg-type]
        for i in range(4):
            job, created = manager.submit(job_request(f"k{i}"))
            assert created
            assert job.done.wait(5)
        manager.submit(job_request("k4"))[0].done.wait(5)
        assert [manager.get(f"k{i}") is not None for i in range(5)] == [False, False, False, True, True]


@pytest.mark.timeout(30)
class TestBadRequests:
    def test_a_huge_content_length_is_refused_before_the_body_is_read(self, scripted):
        # The body is never sent: a server that read it before answering would leave recv()
        # waiting until the socket's timeout raises, and the test fails there, not on a clock.
        with socket.create_connection(scripted.base, timeout=20) as sock:
            sock.sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Agent-Token: " + TOKEN.encode() +
                         b"\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{")
            response = b""
            while b"\r\n\r\n" not in response or not response.rstrip().endswith(b"}"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                response += chunk
        head, _, payload = response.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 413")
        assert b"application/json" in head
        assert json.loads(payload)["extra"]["limit_bytes"] == 2 * 1024 * 1024

    def test_an_oversized_body_sent_in_full_gets_413_json(self, scripted):
        big = job_request("big", source="x" * (3 * 1024 * 1024))
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", big)
        assert status == 413
        assert "limit" in body["message"]
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
        assert status == 400
        assert body["message"].startswith("malformed JSON")
        assert "extra" in body
        assert "Traceback" not in json.dumps(body)

    @pytest.mark.parametrize("field", ["id", "problem", "language", "source"])
    def test_a_missing_field_is_400_naming_it(self, scripted, field):
        request = job_request("fields")
        del request[field]
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", request)
        assert status == 400, body
        assert body["message"].startswith(f"{field}:"), body
        assert body["extra"]["field"] == field
        assert scripted.judge.calls == []

    @pytest.mark.parametrize(("field", "value"), [("mode", "fast"), ("language", "rust"), ("seed", "7"),
                                                  ("limits", {"check_s": -1}), ("id", "x" * 65)])
    def test_an_invalid_field_is_400_naming_it(self, scripted, field, value):
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", job_request("fields", **{field: value}))
        assert status == 400, body
        assert body["message"].startswith(field), body

    def test_a_body_that_is_not_an_object_is_400(self, scripted):
        status, body, _ = call(scripted.base, "POST", "/v1/jobs", [1, 2])
        assert status == 400
        assert body["message"]

    def test_unknown_paths_are_404_and_wrong_methods_405(self, scripted):
        assert call(scripted.base, "GET", "/v2/health")[0] == 404
        assert call(scripted.base, "GET", "/v1/jobs/a/b/c")[0] == 404
        status, body, response = call(scripted.base, "DELETE", "/v1/health")
        assert status == 405
        assert response.getheader("Allow") == "GET"
        assert body["extra"]["allowed"] == ["GET"]
        assert call(scripted.base, "PUT", "/v1/jobs", {})[0] == 405
        status, body, _ = call(scripted.base, "BREW", "/v1/health")  # a method http.server does not know
        assert status == 501
        assert body["message"]

    def test_an_unexpected_error_is_500_json_without_a_traceback(self, scripted, monkeypatch):
        def explode(*_: Any, **__: Any) -> None:
            raise KeyError("secret internals")

        monkeypatch.setattr(scripted.manager, "describe", explode)
        status, body, _ = call(scripted.base, "GET", "/v1/jobs/any")
        text = json.dumps(body)
        assert status == 500
        assert "secret internals" not in text
        assert "Traceback" not in text

"""An in-test stand-in for an agent speaking protocol v1, with scripted events.

Only for unit tests of the platform's client and runner; the real path tests use the real agent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "fake-agent-token"


def accepted_script() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("STATUS", {"status": "COMPILING"}),
        ("COMPILE_RESULT", {"ok": True, "output": "", "cached": False, "seconds": 0.1}),
        ("STATUS", {"status": "CHECKING"}),
        ("TEST_RESULT", {"case": "n=1", "index": 0, "total": 1, "passed": True, "message": None, "seconds": 0.0}),
        ("STATUS", {"status": "BENCHMARKING"}),
        ("BENCHMARK_RESULT", {"case": "n=2^20", "index": 0, "total": 1, "runs": 10, "mean_ms": 1.5,
                              "median_ms": 1.4, "std_ms": 0.1, "min_ms": 1.3, "max_ms": 1.9, "gflops": 0.7,
                              "gbps": 8.0}),
        ("RESULT", {"status": "ACCEPTED", "reason": "all 1 tests passed", "score_ms": 1.5,
                    "summary": {"tests": 1}}),
    ]


@dataclass
class FakeAgent:
    script: list[tuple[str, dict[str, Any]]] = field(default_factory=accepted_script)
    post_status: int = 202  # 409 busy, 400 refuse
    events_status: int = 200  # 404: lost the job
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[tuple[str, str]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    url: str = ""

    def events_for(self, after: int) -> list[dict[str, Any]]:
        return [{"seq": i, "type": t, "payload": p, "at": "2026-01-01T00:00:00.000Z"}
                for i, (t, p) in enumerate(self.script, start=1) if i > after]


def _handler(agent: FakeAgent) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _authorized(self) -> bool:
            if self.headers.get("X-Agent-Token") != TOKEN:
                self._send(401, {"message": "missing or wrong X-Agent-Token", "extra": {}})
                return False
            return True

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            agent.calls.append(("GET", self.path))
            if not self._authorized():
                return
            if parts.path == "/v1/health":
                self._send(200, {"device": "host", "busy": False})
                return
            job_id = parts.path.split("/")[3]
            if agent.events_status != 200 or job_id not in agent.jobs:
                self._send(404, {"message": f"no job {job_id!r}", "extra": {}})
                return
            after = int(parse_qs(parts.query).get("after", ["0"])[0])
            events = agent.events_for(after)
            state = "finished" if any(t == "RESULT" for t, _ in agent.script) else "running"
            self._send(200, {"job": {"id": job_id, "state": state}, "events": events})

        def do_POST(self) -> None:
            agent.calls.append(("POST", self.path))
            if not self._authorized():
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if agent.post_status != 202:
                self._send(agent.post_status, {"message": "busy with job x" if agent.post_status == 409
                                               else "language: not supported here", "extra": {}})
                return
            created = body["id"] not in agent.jobs
            agent.jobs.setdefault(body["id"], body)
            self._send(202 if created else 200, {"id": body["id"], "state": "running"})

        def do_DELETE(self) -> None:
            agent.calls.append(("DELETE", self.path))
            if not self._authorized():
                return
            job_id = urlsplit(self.path).path.split("/")[3]
            agent.cancelled.append(job_id)
            self._send(200, {"id": job_id, "state": "cancelled"})

    return Handler


@contextmanager
def running(agent: FakeAgent) -> Iterator[FakeAgent]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(agent))
    server.daemon_threads = True
    agent.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield agent
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

"""An in-test stand-in for an agent speaking protocol v1, with scripted events.

For tests of the platform's client and runner; the real path tests use the real agent. It speaks
mode `leaderboard` as the real agent does (docs/agent.md, Ranked pass: RANKING, RANKED_RESULT,
RESULT.summary.ranked) with figures fixed in advance, refuses what that protocol refuses (an
unknown mode, a leaderboard job without a valid `ranked_seed`: 400), and can run as a local pool's
agent process (`python -m tests.support.fake_agent serve ...`, see `main`) for the CLI test.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "fake-agent-token"
MODES = ("compile", "check", "benchmark", "leaderboard")
Script = list[tuple[str, dict[str, Any]]]


def accepted_script() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("STATUS", {"status": "COMPILING"}),
        ("COMPILE_RESULT", {"ok": True, "output": "", "cached": False, "seconds": 0.1}),
        ("STATUS", {"status": "CHECKING"}),
        ("TEST_RESULT", {"case": "n=1", "index": 0, "total": 1, "passed": True, "message": None, "seconds": 0.0}),
        ("STATUS", {"status": "BENCHMARKING"}),
        ("BENCHMARK_RESULT", {"case": "n=2^20", "index": 0, "total": 1, "runs": 10, "mean_ms": 1.5,
                              "median_ms": 1.4, "std_ms": 0.1, "min_ms": 1.3, "max_ms": 1.9, "gflops": 0.7,
                              "gbps": 8.0, "ci95_ms": [1.44, 1.56], "reference_mean_ms": 1.8, "speedup": 1.2}),
        ("RESULT", {"status": "ACCEPTED", "reason": "all 1 tests passed", "score_ms": 1.5,
                    "summary": {"tests": 1}}),
    ]


def emulated_check_script() -> list[tuple[str, dict[str, Any]]]:
    """A hip check on the emulated device as the agent reports it (docs/agent.md, Emulated device)."""
    return [
        ("STATUS", {"status": "COMPILING"}),
        ("COMPILE_RESULT", {"ok": True, "output": "", "cached": False, "seconds": 0.4}),
        ("STATUS", {"status": "CHECKING"}),
        ("TEST_RESULT", {"case": "n=1", "index": 0, "total": 1, "passed": True, "message": None, "seconds": 0.0}),
        ("RESULT", {"status": "CHECKED", "reason": "all 1 tests passed on the emulated device (CPU)",
                    "score_ms": None, "summary": {"device": "emulated", "language": "hip", "mode": "check"}}),
    ]


def ranked_case(name: str, index: int, total: int, mean_ms: float, reference_mean_ms: float | None = None,
                runs: int = 12) -> dict[str, Any]:
    """One RANKED_RESULT payload; the interval is ±2 % of the mean."""
    speedup = reference_mean_ms / mean_ms if reference_mean_ms is not None else None
    return {"case": name, "index": index, "total": total, "runs": runs, "mean_ms": mean_ms,
            "median_ms": mean_ms * 0.99, "ci95_ms": [mean_ms * 0.98, mean_ms * 1.02],
            "reference_mean_ms": reference_mean_ms, "speedup": speedup, "gflops": 1.0, "gbps": 10.0,
            "reference_ci95_ms": None if reference_mean_ms is None else [reference_mean_ms * 0.98,
                                                                         reference_mean_ms * 1.02]}


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def ranked_summary(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """RESULT.summary.ranked of a passed ranked pass over these RANKED_RESULT payloads."""
    score = _geomean([c["mean_ms"] for c in cases])
    speedups = [c["speedup"] for c in cases]
    return {"passed": True, "reason": "", "score_ms": score, "ci95_ms": [score * 0.98, score * 1.02],
            "speedup": _geomean(speedups) if None not in speedups else None, "cases": cases}


def leaderboard_script(cases: list[tuple[str, float, float | None]] | None = None) -> Script:
    """A leaderboard job that passes: the accepted script's steps, then the ranked pass over
    `cases` ((name, mean_ms, reference_mean_ms); by default vector-add's host ranked case)."""
    cases = cases if cases is not None else [("n=3000017", 2.0, 3.0)]
    ranked = [ranked_case(name, i, len(cases), mean, ref) for i, (name, mean, ref) in enumerate(cases)]
    steps = accepted_script()[:-1]
    return [*steps, ("STATUS", {"status": "RANKING"}), *(("RANKED_RESULT", payload) for payload in ranked),
            ("RESULT", {"status": "ACCEPTED", "reason": "all 1 tests passed; ranked on 1 case", "score_ms": 1.5,
                        "summary": {"tests": 1, "speedup": 1.2, "score_ci95_ms": [1.4, 1.6],
                                    "ranked": ranked_summary(ranked)}})]


def ranked_failure_script(status: str = "WRONG_ANSWER",
                          reason: str = "ranked pass: case 'n=3000017': c[1234]: expected 0.5, got 0.25") -> Script:
    """A leaderboard job whose ranked pass fails after the public benchmark passed."""
    return [*accepted_script()[:-1], ("STATUS", {"status": "RANKING"}),
            ("RESULT", {"status": status, "reason": reason, "score_ms": 1.5,
                        "summary": {"tests": 1, "ranked": {"passed": False, "reason": reason, "score_ms": None,
                                                           "ci95_ms": None, "speedup": None, "cases": []}}})]


def contract_refusal(job: dict[str, Any]) -> str | None:
    """Why the agent refuses this job (HTTP 400), or None."""
    mode = job.get("mode")
    if mode not in MODES:
        return f"mode: {mode!r} is not one of {', '.join(MODES)}"
    seed = job.get("ranked_seed")
    if mode == "leaderboard" and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        return "ranked_seed: a leaderboard job needs an integer from 0 to 2**63 - 1"
    return None


@dataclass
class FakeAgent:
    script: Script = field(default_factory=accepted_script)
    # When set, each job gets the script this returns for its request body (else `script`).
    script_for: Callable[[dict[str, Any]], Script] | None = None
    token: str = TOKEN
    post_status: int = 202  # 409 busy, 400 refuse
    events_status: int = 200  # 404: lost the job
    events_per_poll: int | None = None  # at most this many events per answer (None: all there are)
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    scripts: dict[str, Script] = field(default_factory=dict)
    calls: list[tuple[str, str]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    url: str = ""

    def script_of(self, job_id: str) -> Script:
        return self.scripts.get(job_id, self.script)

    def events_for(self, after: int, job_id: str = "") -> list[dict[str, Any]]:
        events = [{"seq": i, "type": t, "payload": p, "at": "2026-01-01T00:00:00.000Z"}
                  for i, (t, p) in enumerate(self.script_of(job_id), start=1) if i > after]
        return events[:self.events_per_poll]


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
            if self.headers.get("X-Agent-Token") != agent.token:
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
            events = agent.events_for(after, job_id)
            state = "finished" if any(t == "RESULT" for t, _ in agent.script_of(job_id)) else "running"
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
            refusal = contract_refusal(body)
            if refusal:
                self._send(400, {"message": refusal, "extra": {}})
                return
            created = body["id"] not in agent.jobs
            agent.jobs.setdefault(body["id"], body)
            if created and agent.script_for is not None:
                agent.scripts[body["id"]] = agent.script_for(body)
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


def served_script(device_class: str) -> Callable[[dict[str, Any]], Script]:
    """The script of a served fake agent: a leaderboard job passes its ranked pass on the bundle's
    ranked cases for the device class, 3 ms each, the reference taking 1.5x as long."""
    def script(job: dict[str, Any]) -> Script:
        if job.get("mode") != "leaderboard":
            return accepted_script()
        definition = (job.get("problem") or {}).get("definition") or {}
        names = [c["name"] for c in definition.get("ranked") or [] if device_class in c.get("devices", [])]
        return leaderboard_script([(name, 3.0, 4.5) for name in names])

    return script


def main(argv: list[str] | None = None) -> int:
    """`python -m tests.support.fake_agent serve` with the local backend's arguments: listens, prints the
    ready line the backend reads, serves until killed."""
    parser = argparse.ArgumentParser(prog="fake_agent")
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--workdir", default="")
    parser.add_argument("--device", default="host")
    parser.add_argument("--insecure-no-sandbox", action="store_true")
    parser.add_argument("--stop-after-silence", type=float, default=0.0)
    args = parser.parse_args(argv)
    agent = FakeAgent(token=Path(args.token_file).read_text().strip(),
                      script_for=served_script("host" if args.device == "host" else "gpu"))
    server = ThreadingHTTPServer((args.host, args.port), _handler(agent))
    server.daemon_threads = True
    print(f"agent listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever(poll_interval=0.05)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The dstack stand-in (tests/fleets/dstack/standin.py) with a REAL agent process behind its service
proxy: applying a run starts `python -m agent serve` on 127.0.0.1 with the token the run's env
carries (as the VM's commands would), the proxy forwards every request (method, path, query, body,
X-Agent-Token) to it, and stopping the run stops the process. What the local dstack server cannot
do here (no cloud, no Docker) — a VM that runs and judges — goes through the same HTTP as in
production, dstack client and proxy path included.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from dstack._internal.core.models.runs import Run, RunSpec

from fleets.dstack import AGENT_TOKEN_ENV
from tests.fleets.dstack.factories import provisioning_data
from tests.fleets.dstack.standin import DstackStandIn, _Entry

ROOT = Path(__file__).resolve().parents[2]
READY = re.compile(r"agent listening on http://127\.0\.0\.1:(\d+)")


class AgentStandIn(DstackStandIn):
    def __init__(self, workdir: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.workdir = workdir
        self.agents: dict[str, tuple[subprocess.Popen[bytes], int]] = {}  # run name -> process, port
        base = self._server.RequestHandlerClass
        self._server.RequestHandlerClass = _forwarding(base, self)  # type: ignore[method-assign]

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        for name in list(self.agents):
            self._stop_agent(name)

    # -- runs: a running run has an agent; a stopped one has none ---------------------------------
    def _apply(self, spec: RunSpec) -> Run:
        run = super()._apply(spec)
        token = spec.configuration.env.as_dict().get(AGENT_TOKEN_ENV, "")
        self.agents[spec.run_name or ""] = self._start_agent(spec.run_name or "", str(token))
        return run

    def _advance(self, entry: _Entry) -> Run:
        run = super()._advance(entry)
        job = run.latest_job_submission
        if run.status.value == "running" and job is not None and job.job_provisioning_data is None:
            job.job_provisioning_data = provisioning_data()  # dstack reports the offer's price once placed
        return run

    def _stop(self, name: str, *, abort: bool) -> None:
        super()._stop(name, abort=abort)
        self._stop_agent(name)

    def _start_agent(self, name: str, token: str) -> tuple[subprocess.Popen[bytes], int]:
        folder = self.workdir / name
        folder.mkdir(parents=True, exist_ok=True)
        token_file = folder / "token"
        token_file.write_text(token)
        token_file.chmod(0o600)
        command = [sys.executable, "-m", "agent", "serve", "--host", "127.0.0.1", "--port", "0",
                   "--token-file", str(token_file), "--workdir", str(folder / "work"), "--device", "host"]
        if shutil.which("bwrap") is None:  # the proxy path is under test, not the sandbox
            command.append("--insecure-no-sandbox")
        log = folder / "agent.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True,
                                    env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            match = READY.search(log.read_text(errors="replace"))
            if match:
                return proc, int(match.group(1))
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        proc.kill()
        raise RuntimeError(f"the agent behind the stand-in did not start:\n{log.read_text(errors='replace')}")

    def _stop_agent(self, name: str) -> None:
        found = self.agents.pop(name, None)
        if found is None:
            return
        proc, _ = found
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    # -- the proxy ---------------------------------------------------------------------------------
    def forward(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str] | None:
        """The agent's answer, or None when the stand-in's own checks should answer instead."""
        match = re.match(rf"^/proxy/services/{re.escape(self.project)}/([a-z0-9-]+)(/.*)$", path)
        if match is None or headers.get("authorization") != f"Bearer {self.token}":
            return None
        entry = self._find(None, match.group(1))
        found = self.agents.get(match.group(1))
        if entry is None or found is None or entry.run.status.value != "running":
            return None
        conn = http.client.HTTPConnection("127.0.0.1", found[1], timeout=60)
        try:
            forwarded = {"X-Agent-Token": headers.get("x-agent-token", ""), "Content-Type": "application/json"}
            conn.request(method, match.group(2), body=body or None, headers=forwarded)
            response = conn.getresponse()
            return response.status, response.read().decode()
        except OSError as exc:
            return 502, json.dumps({"detail": f"upstream: {exc}"})
        finally:
            conn.close()


def _forwarding(base: Any, standin: AgentStandIn) -> Any:
    class Forwarding(base):  # type: ignore[misc, valid-type]
        def _proxy(self, method: str) -> bool:
            if not self.path.startswith("/proxy/"):
                return False
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            standin.calls.append(self.path.split("?", 1)[0])
            answer = standin.forward(method, self.path, headers, body)
            if answer is None:
                self._reply(*standin.handle_proxy(method, self.path.split("?", 1)[0], headers))
            else:
                self._reply(*answer)
            return True

        def do_GET(self) -> None:  # noqa: N802
            if not self._proxy("GET"):
                super().do_GET()

        def do_POST(self) -> None:  # noqa: N802
            if not self._proxy("POST"):
                super().do_POST()

        def do_DELETE(self) -> None:  # noqa: N802
            self._proxy("DELETE")

    return Forwarding

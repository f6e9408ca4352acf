"""An in-process stand-in for the dstack server, for the happy path only.

A local dstack server cannot run a VM here (no cloud, no Docker), so "the run reaches running and
its agent answers through the service proxy" is exercised against this HTTP server on 127.0.0.1.
It implements only what the dstack layer calls for runs (server info, file upload, run plan,
apply, get, stop, list) plus the service proxy path, and answers with dstack's own model classes
serialized as the real server does. Each `runs/get` advances a run one step along `script`.
The agent behind the proxy is a fake that checks `X-Agent-Token` and answers `GET /v1/health`.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from dstack._internal.core.models.common import ApplyAction
from dstack._internal.core.models.files import FileArchive
from dstack._internal.core.models.runs import JobPlan, JobStatus, Run, RunPlan, RunSpec, RunStatus

from fleets.dstack import AGENT_TOKEN_ENV, DstackClient, DstackSettings
from tests.fleets.dstack.factories import job_spec, make_run, mi300x_offer, now

# (run status, job status) after each successive `runs/get`; the last one repeats.
HAPPY_PATH: tuple[tuple[str, str], ...] = (
    ("submitted", "submitted"),
    ("provisioning", "provisioning"),
    ("provisioning", "pulling"),
    ("running", "running"),
)
AGENT_HEALTH = {"device": "hip", "arch": "gfx942", "busy": False, "toolchains": {"hipcc": "6.2.4"}}


@dataclass
class _Entry:
    run: Run
    steps: list[tuple[str, str]]
    agent_token: str = field(repr=False)


class DstackStandIn:
    def __init__(
        self,
        *,
        token: str = "standin-token",
        project: str = "main",
        script: Sequence[tuple[str, str]] = HAPPY_PATH,
    ) -> None:
        self.token = token
        self.project = project
        self.script = tuple(script)
        self.calls: list[str] = []  # request paths, in order
        self._runs: dict[uuid.UUID, _Entry] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> DstackStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def settings(self, **overrides: Any) -> DstackSettings:
        values: dict[str, Any] = {
            "server_url": self.url,
            "token": self.token,
            "project": self.project,
            "timeout_s": 5.0,
            "connect_retries": 1,
            "backoff_s": 0.05,
        }
        values.update(overrides)
        return DstackSettings(**values)

    def client(self, **overrides: Any) -> DstackClient:
        return DstackClient(self.settings(**overrides))

    # -- the API ---------------------------------------------------------------------------

    def handle_api(self, path: str, body: dict[str, Any]) -> tuple[int, str]:
        prefix = f"/api/project/{self.project}/runs/"
        if path == "/api/server/get_info":
            return 200, json.dumps({"server_version": "0.22.5"})
        if path == "/api/files/upload_archive":
            return 200, FileArchive(id=uuid.uuid4(), hash="standin").model_dump_json()
        if path == "/api/runs/list":
            with self._lock:
                runs = sorted(
                    (e.run for e in self._runs.values()), key=lambda r: r.submitted_at, reverse=True
                )
            if body.get("only_active"):
                runs = [r for r in runs if not r.status.is_finished()]
            return 200, "[" + ",".join(r.model_dump_json() for r in runs) + "]"
        if not path.startswith(prefix):
            return 404, json.dumps({"detail": "Not Found"})
        action = path[len(prefix) :]
        if action == "get_plan":
            return 200, self._plan(RunSpec.model_validate(body["run_spec"])).model_dump_json()
        if action == "apply":
            return 200, self._apply(RunSpec.model_validate(body["plan"]["run_spec"])).model_dump_json()
        if action == "get":
            entry = self._find(body.get("id"), body.get("run_name"))
            if entry is None:
                return 400, json.dumps(
                    {"detail": [{"msg": "Resource not found", "code": "resource_not_exists"}]}
                )
            return 200, self._advance(entry).model_dump_json()
        if action == "stop":
            for name in body.get("runs_names", []):
                self._stop(name, abort=bool(body.get("abort")))
            return 200, "null"
        return 404, json.dumps({"detail": "Not Found"})

    def _plan(self, spec: RunSpec) -> RunPlan:
        current = self._find(None, spec.run_name)
        return RunPlan(
            project_name=self.project,
            user="admin",
            run_spec=spec,
            job_plans=[
                JobPlan(job_spec=job_spec(spec), offers=[mi300x_offer()], total_offers=1, max_price=1.99)
            ],
            current_resource=current.run if current is not None else None,
            action=ApplyAction.CREATE,
        )

    def _apply(self, spec: RunSpec) -> Run:
        first_run, first_job = self.script[0]
        run = make_run(first_run, first_job, spec=spec, project_name=self.project)
        token = spec.configuration.env.as_dict().get(AGENT_TOKEN_ENV, "")
        with self._lock:
            self._runs[run.id] = _Entry(run=run, steps=list(self.script), agent_token=token)
        return run

    def _find(self, run_id: str | None, name: str | None) -> _Entry | None:
        with self._lock:
            if run_id is not None:
                return self._runs.get(uuid.UUID(run_id))
            named = [e for e in self._runs.values() if e.run.run_spec.run_name == name]
        return max(named, key=lambda e: e.run.submitted_at, default=None)

    def _advance(self, entry: _Entry) -> Run:
        with self._lock:
            if entry.steps:
                run_status, job_status = entry.steps.pop(0)
                entry.run = _with_status(entry.run, run_status, job_status)
            return entry.run

    def _stop(self, name: str, *, abort: bool) -> None:
        entry = self._find(None, name)
        if entry is None or entry.run.status.is_finished():
            return
        run_reason = "aborted_by_user" if abort else "stopped_by_user"
        with self._lock:
            entry.run = _with_status(entry.run, "terminating", "terminating", run_reason=run_reason)
            entry.steps = [("terminating", "terminating"), ("terminated", "terminated")]

    # -- the service proxy -----------------------------------------------------------------

    def handle_proxy(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
        match = re.match(rf"^/proxy/services/{re.escape(self.project)}/([a-z0-9-]+)/(.*)$", path)
        if match is None:
            return 404, json.dumps({"detail": "Not Found"})
        if headers.get("authorization") != f"Bearer {self.token}":
            return 403, json.dumps({"detail": "Not authenticated"})
        entry = self._find(None, match.group(1))
        if entry is None or entry.run.status is not RunStatus.RUNNING:
            return 503, json.dumps({"detail": "Service is not running"})
        # strip_prefix: the agent sees /v1/health, not the proxy path.
        if headers.get("x-agent-token") != entry.agent_token:
            return 401, json.dumps({"error": "bad agent token"})
        if method == "GET" and match.group(2) == "v1/health":
            return 200, json.dumps(AGENT_HEALTH)
        return 404, json.dumps({"error": "not found"})


def _with_status(run: Run, run_status: str, job_status: str, *, run_reason: str | None = None) -> Run:
    job = run.latest_job_submission
    assert job is not None
    finished = JobStatus(job_status).is_finished()
    reason = job.termination_reason
    if run_status == "terminated":
        reason = "aborted_by_user" if run.termination_reason == "aborted_by_user" else "terminated_by_user"
    job = job.model_copy(
        update={
            "status": JobStatus(job_status),
            "termination_reason": reason,
            "last_processed_at": now(),
            "finished_at": now() if finished else None,
        }
    )
    jobs = [run.jobs[0].model_copy(update={"job_submissions": [job]})]
    return run.model_copy(
        update={
            "status": RunStatus(run_status),
            "termination_reason": run_reason or run.termination_reason,
            "latest_job_submission": job,
            "jobs": jobs,
            "last_processed_at": now(),
        }
    )


def _handler_for(standin: DstackStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def _reply(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            standin.calls.append(path)
            headers = {k.lower(): v for k, v in self.headers.items()}
            if path.startswith("/proxy/"):
                self._reply(*standin.handle_proxy(method, path, headers))
                return
            if path != "/api/server/get_info" and headers.get("authorization") != f"Bearer {standin.token}":
                self._reply(403, json.dumps({"detail": {"msg": "Invalid token", "code": None}}))
                return
            is_json = headers.get("content-type", "").startswith("application/json")
            body = json.loads(raw) if raw and is_json else {}
            self._reply(*standin.handle_api(path, body))

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._serve("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._serve("POST")

    return Handler

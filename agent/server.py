"""Agent protocol v1 over HTTP (standard library only): health, jobs, events, cancel.

Every response is JSON, errors included (`{"message", "extra"}`, never a traceback), every request
but a malformed one must carry the agent token in `X-Agent-Token`, and a request body is never
read beyond the size limit. The judging itself lives in agent.judging.jobs / agent.judging.judge.
"""

from __future__ import annotations

import hmac
import json
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from agent import __version__
from agent.judging.jobs import AgentBusy, JobManager
from agent.protocol import ACTIVE_STATES, PROTOCOL_VERSION
from agent.self_stop import SilenceWatch

MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_CONCURRENT_REQUESTS = 64
SOCKET_TIMEOUT_SECONDS = 30
# After refusing an oversized body we read and discard a bounded amount of it before closing, so
# the client gets our 413 instead of a connection reset while it is still sending.
DISCARD_LIMIT_BYTES = 16 * 1024 * 1024
DISCARD_SECONDS = 2.0

# route name -> methods; a route is matched by the shape of the path (see _route).
ALLOWED_METHODS = {
    "health": ("GET",),
    "jobs": ("GET", "POST"),
    "job": ("GET", "DELETE"),
    "events": ("GET",),
}


class HttpError(Exception):
    def __init__(self, status: int, message: str, extra: dict | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.extra, self.headers = status, message, extra or {}, headers or {}


class AgentServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], *, token: str, manager: JobManager,
                 health: Callable[[], dict], max_body_bytes: int = MAX_BODY_BYTES,
                 silence: SilenceWatch | None = None) -> None:
        if not token:
            raise ValueError("the agent token is empty")
        self.token = token.encode()
        self.manager = manager
        self.health = health
        self.silence = silence  # told of every request with the token: the platform is there (agent.self_stop)
        self.max_body_bytes = max_body_bytes
        self.started = time.monotonic()
        self._slots = threading.BoundedSemaphore(MAX_CONCURRENT_REQUESTS)
        if ":" in address[0]:  # an IPv6 literal such as "::1"
            self.address_family = socket.AF_INET6
        super().__init__(address, AgentHandler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def process_request(self, request: Any, client_address: Any) -> None:
        # One thread per connection, but never more than MAX_CONCURRENT_REQUESTS of them.
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class AgentHandler(BaseHTTPRequestHandler):
    server: AgentServer
    server_version = f"hipjudge-agent/{__version__}"
    sys_version = ""
    timeout = SOCKET_TIMEOUT_SECONDS  # a slow or silent client cannot hold a thread forever

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    # ---- plumbing ----------------------------------------------------------------------------
    def _dispatch(self, method: str) -> None:
        silence = None
        try:
            self._check_token()
            silence = self.server.silence
            if silence is not None:
                silence.enter()
            route, job_id = _route(urlsplit(self.path).path)
            if route is None:
                raise HttpError(404, f"no such endpoint: {urlsplit(self.path).path}")
            allowed = ALLOWED_METHODS[route]
            if method not in allowed:
                raise HttpError(405, f"{method} is not allowed here", {"allowed": list(allowed)},
                                {"Allow": ", ".join(allowed)})
            status, body = getattr(self, f"_{route}_{method.lower()}")(job_id)
            self._send_json(status, body)
        except HttpError as exc:
            self._send_json(exc.status, {"message": exc.message, "extra": exc.extra}, exc.headers)
            if exc.status in (411, 413):  # the body was left unread
                self._discard_rest_of_request()
        except Exception:
            print(f"agent: {self.command} {self.path} failed\n{traceback.format_exc()}", file=sys.stderr,
                  flush=True)
            self._send_json(500, {"message": "internal error in the agent (see its log)", "extra": {}})
        finally:
            if silence is not None:
                silence.leave()

    def _check_token(self) -> None:
        given = self.headers.get("X-Agent-Token", "")
        if not hmac.compare_digest(given.strip().encode(), self.server.token):
            raise HttpError(401, "missing or wrong X-Agent-Token")

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, allow_nan=False, default=str).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # Used by the base class for unparsable requests and unknown methods: answer JSON there too.
        self.close_connection = True
        try:
            self._send_json(code, {"message": message or self.responses.get(code, ("error",))[0],
                                   "extra": {}})
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        print(f"agent: {self.address_string()} {format % args}", file=sys.stderr, flush=True)

    def _read_json_body(self) -> Any:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise HttpError(411, "send the body with a Content-Length, not chunked")
        raw_length = self.headers.get("Content-Length")
        if raw_length is None:
            raise HttpError(411, "Content-Length is required")
        try:
            length = int(raw_length)
        except ValueError:
            raise HttpError(400, "Content-Length is not a number") from None
        if length < 0:
            raise HttpError(400, "Content-Length is negative")
        if length > self.server.max_body_bytes:
            raise HttpError(413, f"the body is {length} bytes; the limit is {self.server.max_body_bytes}",
                            {"limit_bytes": self.server.max_body_bytes})
        data = self.rfile.read(length)
        if len(data) != length:
            raise HttpError(400, f"the body ended after {len(data)} of {length} bytes")
        try:
            return json.loads(data, parse_constant=_reject_constant)
        except UnicodeDecodeError as exc:
            raise HttpError(400, "malformed JSON: the body is not UTF-8", {"position": exc.start}) from None
        except json.JSONDecodeError as exc:
            raise HttpError(400, f"malformed JSON: {exc.msg}",
                            {"line": exc.lineno, "column": exc.colno, "position": exc.pos}) from None
        except ValueError as exc:
            raise HttpError(400, f"malformed JSON: {exc}") from None
        except RecursionError:
            raise HttpError(400, "malformed JSON: nested too deeply") from None

    def _discard_rest_of_request(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(0.5)
            deadline, discarded = time.monotonic() + DISCARD_SECONDS, 0
            while time.monotonic() < deadline and discarded < DISCARD_LIMIT_BYTES:
                chunk = self.connection.recv(65536)
                if not chunk:
                    break
                discarded += len(chunk)
        except OSError:
            pass

    def _query(self) -> dict[str, str]:
        return {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}

    def _existing_job(self, job_id: str) -> dict:
        described = self.server.manager.describe(job_id)
        if described is None:
            raise HttpError(404, f"no job {job_id!r} on this agent", {"job_id": job_id})
        return described

    # ---- endpoints ---------------------------------------------------------------------------
    def _health_get(self, _: str | None) -> tuple[int, dict]:
        manager = self.server.manager
        current = manager.active_job_id()
        info = dict(self.server.health())
        info.update({
            "protocol": PROTOCOL_VERSION,
            "agent_version": __version__,
            "busy": current is not None,
            "job": current,
            "uptime_s": round(time.monotonic() - self.server.started, 1),
        })
        return 200, info

    def _jobs_get(self, _: str | None) -> tuple[int, dict]:
        return 200, {"jobs": self.server.manager.list_jobs()}

    def _jobs_post(self, _: str | None) -> tuple[int, dict]:
        body = self._read_json_body()
        try:
            job, created = self.server.manager.submit(body)
        except AgentBusy as exc:
            raise HttpError(409, str(exc), {"job_id": exc.job_id}) from None
        except ValueError as exc:  # JobSpecError / ProblemError: the message names the field
            message = str(exc)
            raise HttpError(400, message, {"field": message.split(":", 1)[0]}) from None
        return (202 if created else 200), self._existing_job(job.id)

    def _job_get(self, job_id: str) -> tuple[int, dict]:
        return 200, self._existing_job(job_id)

    def _job_delete(self, job_id: str) -> tuple[int, dict]:
        self._existing_job(job_id)
        described = self.server.manager.cancel(job_id)
        if described is None:  # evicted in between
            raise HttpError(404, f"no job {job_id!r} on this agent", {"job_id": job_id})
        # 202: the cancel is under way but the judge has not ended yet; poll the events for it.
        return (202 if described["state"] in ACTIVE_STATES else 200), described

    def _events_get(self, job_id: str) -> tuple[int, dict]:
        query = self._query()
        after = _int_param(query, "after", 0)
        wait = _float_param(query, "wait", 0.0)
        found = self.server.manager.events(job_id, after=after, wait_seconds=wait)
        if found is None:
            raise HttpError(404, f"no job {job_id!r} on this agent", {"job_id": job_id})
        job, events = found
        return 200, {"job": job, "events": events}


def _route(path: str) -> tuple[str | None, str | None]:
    parts = [unquote(p) for p in path.strip("/").split("/")]
    if parts == ["v1", "health"]:
        return "health", None
    if parts == ["v1", "jobs"]:
        return "jobs", None
    if len(parts) == 3 and parts[:2] == ["v1", "jobs"] and parts[2]:
        return "job", parts[2]
    if len(parts) == 4 and parts[:2] == ["v1", "jobs"] and parts[2] and parts[3] == "events":
        return "events", parts[2]
    return None, None


def _int_param(query: dict[str, str], name: str, default: int) -> int:
    if name not in query:
        return default
    try:
        value = int(query[name])
    except ValueError:
        raise HttpError(400, f"{name}: must be a non-negative integer", {"field": name}) from None
    if value < 0:
        raise HttpError(400, f"{name}: must be a non-negative integer", {"field": name})
    return value


def _float_param(query: dict[str, str], name: str, default: float) -> float:
    if name not in query:
        return default
    try:
        value = float(query[name])
    except ValueError:
        raise HttpError(400, f"{name}: must be a number of seconds", {"field": name}) from None
    if not 0 <= value <= 3600:
        raise HttpError(400, f"{name}: must be a number of seconds", {"field": name})
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")

"""Client for agent protocol v1 (JSON over HTTP, `X-Agent-Token`), standard library only.

One client per caller; it keeps one HTTP/1.1 connection open and reconnects once when the agent
closed it. Errors are typed so callers can tell "agent busy" and "job unknown" from "unreachable".
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode, urlsplit


class AgentError(Exception):
    """The agent could not be reached, or answered something that is not protocol v1."""


class AgentHTTPError(AgentError):
    def __init__(self, status: int, message: str, body: Any = None) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status, self.message, self.body = status, message, body


class AgentBusy(AgentHTTPError):
    pass


class AgentJobNotFound(AgentHTTPError):
    pass


class AgentRejectedJob(AgentHTTPError):
    """400 on POST /v1/jobs: the agent refused the job spec (the message names the field)."""


# The agent bounds every event it reports; an answer far beyond that is not protocol v1, and is
# never read whole (a compromised or buggy agent must not exhaust the worker's memory).
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


class AgentClient:
    def __init__(self, base_url: str, token: str, *, timeout: float = 10.0,
                 headers: dict[str, str] | None = None, max_response_bytes: int = MAX_RESPONSE_BYTES) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AgentError(f"bad agent URL {base_url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout
        self._headers = {"X-Agent-Token": token, "Accept": "application/json", **(headers or {})}
        self._conn: http.client.HTTPConnection | None = None
        self._max_response_bytes = max_response_bytes

    # ---- protocol ----------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        return self._request("GET", "/v1/health")

    def submit(self, job: Mapping[str, Any]) -> tuple[bool, dict[str, Any]]:
        """POST the job (agent.protocol.JobRequest); returns (created, job description). Raises
        AgentBusy / AgentRejectedJob."""
        status, body = self._call("POST", "/v1/jobs", job)
        if status in (200, 202):
            return status == 202, body
        raise self._error(status, body)

    def events(self, job_id: str, *, after: int = 0, wait: float = 0.0) -> dict[str, Any]:
        query = urlencode({"after": after, "wait": wait}) if wait else urlencode({"after": after})
        return self._request("GET", f"/v1/jobs/{quote(job_id, safe='')}/events?{query}",
                             timeout=self._timeout + wait)

    def cancel(self, job_id: str) -> dict[str, Any]:
        return self._request("DELETE", f"/v1/jobs/{quote(job_id, safe='')}", timeout=self._timeout + 10)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ---- plumbing ----------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> dict[str, Any]:
        status, data = self._call(method, path, body, timeout)
        if 200 <= status < 300:
            return data
        raise self._error(status, data)

    def _error(self, status: int, body: Any) -> AgentHTTPError:
        message = body.get("message", "") if isinstance(body, dict) else str(body)[:200]
        kind = {409: AgentBusy, 404: AgentJobNotFound, 400: AgentRejectedJob}.get(status, AgentHTTPError)
        return kind(status, message, body)

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=timeout)
        if self._conn.sock is not None:
            self._conn.sock.settimeout(timeout)
        self._conn.timeout = timeout
        return self._conn

    def _call(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> tuple[int, Any]:
        payload = None if body is None else json.dumps(body).encode()
        headers = dict(self._headers)
        if payload is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):  # a kept-alive connection the agent closed fails once: reconnect
            conn = self._connect(timeout or self._timeout)
            try:
                conn.request(method, self._prefix + path, body=payload, headers=headers)
                response = conn.getresponse()
                raw = response.read(self._max_response_bytes + 1)
                if len(raw) > self._max_response_bytes:
                    self.close()  # the rest is left unread
                    raise AgentError(f"the agent answered more than {self._max_response_bytes} bytes")
                if response.getheader("Connection", "").lower() == "close" or response.will_close:
                    self.close()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()
                if attempt == 2:
                    raise AgentError(f"the agent closed the connection ({exc})") from exc
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if isinstance(exc, socket.timeout | TimeoutError):
                    raise AgentError(f"the agent did not answer within {timeout or self._timeout:.0f} s") from exc
                raise AgentError(f"cannot reach the agent ({exc})") from exc
        try:
            data = json.loads(raw) if raw else {}
        except (ValueError, RecursionError) as exc:
            raise AgentError(f"the agent answered HTTP {response.status} with non-JSON") from exc
        return response.status, data

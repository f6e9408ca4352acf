"""A small REST + SSE client for the HIPJudge API v1 (urllib only: the CLI installs nothing)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

SSE_READ_TIMEOUT = 60.0  # the server sends a heartbeat every 15 s; silence this long means it is gone


class ApiError(Exception):
    def __init__(self, status: int, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra or {}


class ConnectionFailed(Exception):
    pass


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.hostname, parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())


class _CredentialsStayOnOrigin(urllib.request.HTTPRedirectHandler):
    """urllib copies every header onto a redirect, wherever it leads: the token must not follow
    one to another host, port or scheme."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            new.remove_header("Authorization")
        return new


_opener = urllib.request.build_opener(_CredentialsStayOnOrigin)


class Client:
    def __init__(self, server: str, token: str | None = None, timeout: float = 30.0) -> None:
        if not server.startswith(("http://", "https://")):
            raise ValueError(f"server must be an http:// or https:// URL, not {server!r}")
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _request(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None, timeout: float | None = None) -> Any:
        url = f"{self.server}/api/v1{path}" + (f"?{urlencode(query)}" if query else "")
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)  # noqa: S310 (scheme checked above)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            return _opener.open(request, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as exc:
            try:
                payload = json.loads(exc.read() or b"{}")
            except ValueError:
                payload = {}
            message = payload.get("message") if isinstance(payload, dict) else None
            raise ApiError(exc.code, message or f"HTTP {exc.code}", payload.get("extra") if isinstance(
                payload, dict) else None) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ConnectionFailed(f"cannot reach {self.server}: {reason}") from None

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Any:
        with self._request(method, path, body, query) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def text(self, path: str) -> str:
        """A plain-text resource (an AMDGCN listing), decoded as UTF-8."""
        with self._request("GET", path, headers={"Accept": "text/plain, application/json"}) as response:
            return str(response.read().decode("utf-8", "replace"))

    def events(self, submission_id: str, after: int = 0) -> Iterator[dict[str, Any]]:
        """Yield {"seq", "type", "payload", "at"} from the SSE stream until the server closes it."""
        response = self._request("GET", f"/submissions/{submission_id}/events",
                                 headers={"Accept": "text/event-stream", "Last-Event-ID": str(after)},
                                 timeout=SSE_READ_TIMEOUT)
        with response:
            data: list[str] = []
            try:
                for raw in response:
                    line = raw.decode("utf-8").rstrip("\r\n")
                    if line == "":
                        if data:
                            event = json.loads("\n".join(data))
                            data = []
                            if isinstance(event, dict) and "seq" in event:
                                yield event
                        continue
                    if line.startswith("data:"):
                        data.append(line[5:].lstrip())
            except OSError as exc:  # includes timeouts
                raise ConnectionFailed(f"the event stream broke: {exc}") from None

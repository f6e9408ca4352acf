"""A small REST + SSE client for the HIPJudge API v1 (urllib only: the CLI installs nothing).

Every request ends within `timeout` seconds (and the command's `deadline`), every answer and event
is read up to a size cap, and every event is checked against its shape (the commands check the
answers' with cli.shapes.ask): what a broken or hostile server sends ends as one of cli.errors,
never as a hang or a traceback.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from cli import shapes
from cli.errors import ApiError, BadResponse, ConnectionFailed, DeadlinePassed, TimedOut
from cli.transport import MAX_BODY, MAX_ERROR_BODY, Budget, opener, parse_json, read_capped

__all__ = ["ApiError", "BadResponse", "Client", "ConnectionFailed", "DeadlinePassed", "TimedOut"]

# Per answer, and per silence of an event stream: twice the server's heartbeat interval
# (the server's HIPJUDGE_SSE_HEARTBEAT), so a live stream never reaches it and a dead one is given up.
DEFAULT_TIMEOUT = 30.0
# A submission's longest life on the server: an hour in the queue (HIPJUDGE_QUEUE_TIMEOUT), then two
# attempts (HIPJUDGE_MAX_ATTEMPTS) of at most 30 minutes each (HIPJUDGE_JOB_TASK_TIMEOUT).
DEFAULT_DEADLINE = 2 * 3600.0


class Client:
    def __init__(self, server: str, token: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 deadline: float = DEFAULT_DEADLINE) -> None:
        if not server.startswith(("http://", "https://")):
            raise ValueError(f"server must be an http:// or https:// URL, not {server!r}")
        self.server = server.rstrip("/")
        self.token = token
        self.timeout, self.deadline = timeout, deadline
        self.ends = time.monotonic() + deadline
        self._budget = Budget(self.ends, timeout, self._deadline_passed)
        self._opener = opener(lambda: self._budget)

    def remaining(self) -> float:
        """Seconds left before the command's deadline."""
        return max(0.0, self.ends - time.monotonic())

    def _deadline_passed(self) -> Exception:
        return DeadlinePassed(f"the command's deadline of {self.deadline:g} s passed (--deadline)")

    def _too_slow(self) -> Exception:
        return TimedOut(f"no complete answer from the server within {self.timeout:g} s (--timeout)")

    def _request(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None, *, stream: bool = False) -> Any:
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
        # A stream may last until the command's deadline if it is never silent; any other answer
        # comes within `timeout`.
        own_limit = time.monotonic() + self.timeout
        if stream or self.ends <= own_limit:
            self._budget = Budget(self.ends, self.timeout, self._deadline_passed)
        else:
            self._budget = Budget(own_limit, self.timeout, self._too_slow)
        try:
            return self._opener.open(request, timeout=min(self.timeout, self._budget.left()))
        except urllib.error.HTTPError as exc:
            raise self._refusal(exc) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, ConnectionFailed | BadResponse):
                raise exc.reason from None
            raise ConnectionFailed(f"cannot reach {self.server}: {exc.reason}") from None
        except http.client.RemoteDisconnected:
            raise ConnectionFailed(f"{self.server} closed the connection without answering") from None
        except http.client.HTTPException as exc:
            raise BadResponse(f"not an HTTP answer ({type(exc).__name__})") from None
        except OSError as exc:
            raise ConnectionFailed(f"cannot reach {self.server}: {exc}") from None

    def _refusal(self, exc: urllib.error.HTTPError) -> Exception:
        """An error status as ApiError with the server's message; a redirect urllib gave up on
        (a loop, or more than ten) as BadResponse."""
        if 300 <= exc.code < 400:
            return BadResponse(f"redirects that lead nowhere (HTTP {exc.code}: {str(exc.reason)[:100]})")
        try:
            payload = parse_json(read_capped(exc, MAX_ERROR_BODY))
        except (BadResponse, ConnectionFailed, OSError, http.client.HTTPException, AttributeError):
            payload = None  # only the status is known
        payload = payload if isinstance(payload, dict) else {}
        message = payload.get("message")
        if not isinstance(message, str) or not message:
            message = f"the server answered {str(exc.reason)[:100] or 'with an error'}"
        extra = payload.get("extra")
        return ApiError(exc.code, message, extra if isinstance(extra, dict) else None)

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Any:
        """The answer's JSON (cli.shapes.ask checks it against what the caller reads)."""
        with self._request(method, path, body, query) as response, _reading():
            raw = read_capped(response)
            kind = response.headers.get_content_type()
        return parse_json(raw, kind) if raw else None

    def text(self, path: str) -> str:
        """A plain-text resource (an AMDGCN listing), decoded as UTF-8."""
        with self._request("GET", path, headers={"Accept": "text/plain, application/json"}) as response, _reading():
            return read_capped(response).decode("utf-8", "replace")  # within the answers' size limit

    def events(self, submission_id: str, after: int = 0) -> Iterator[dict[str, Any]]:
        """Yield {"seq", "type", "payload", "at"} from the SSE stream until the server closes it."""
        response = self._request("GET", f"/submissions/{submission_id}/events", stream=True,
                                 headers={"Accept": "text/event-stream", "Last-Event-ID": str(after)})
        with response, _reading():
            kind = response.headers.get_content_type()
            if kind != "text/event-stream":
                raise BadResponse(f"{kind[:60]} where an event stream belongs")
            yield from _events(response)


class _reading:  # noqa: N801 (used as a `with` clause)
    """Errors while reading an answer, as the CLI's: a connection that breaks is ConnectionFailed."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, http.client.IncompleteRead):
            raise ConnectionFailed("the server's answer was cut short") from None
        if isinstance(exc, http.client.HTTPException):
            raise BadResponse(f"a broken HTTP answer ({type(exc).__name__})") from None
        if isinstance(exc, OSError):
            raise ConnectionFailed(f"the connection broke: {exc}") from None


def _events(response: Any) -> Iterator[dict[str, Any]]:
    """The events of a text/event-stream, each line and event read up to MAX_BODY."""
    data: list[str] = []
    name, size = "", 0
    while True:
        raw = response.readline(MAX_BODY + 1)
        if not raw:
            return
        if len(raw) > MAX_BODY:
            raise BadResponse("an event stream line is too large (over the limit of 16 MiB)")
        try:
            line = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            raise BadResponse("an event stream that is not UTF-8") from None
        if line == "":
            if data:
                event = _event(name, "\n".join(data))
                if event is not None:
                    yield event
            data, name, size = [], "", 0
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            size += len(value)
            if size > MAX_BODY:
                raise BadResponse("an event is too large (over the limit of 16 MiB)")
            data.append(value)
        elif field == "event":
            name = value


def _event(name: str, data: str) -> dict[str, Any] | None:
    """The event, None for a heartbeat; an `error` event (revoked credentials) is the server's refusal."""
    if name == "heartbeat":
        return None
    value = parse_json(data)
    if name == "error":
        message = value.get("message") if isinstance(value, dict) else None
        raise ApiError(401, message if isinstance(message, str) else "the server ended the event stream")
    return shapes.event(value)

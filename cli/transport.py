"""HTTP for the CLI with limits that a broken or hostile server cannot stretch.

urllib's own timeout bounds each read of the socket, not an answer: a server that drips one byte
a second, headers included, holds it for ever. Here every read of an answer checks a Budget (an
end time and the longest silence) and waits at most what is left of it, so a request ends by its
end time whatever the server does. Bodies are read up to a size cap, never whole.
"""

from __future__ import annotations

import functools
import http.client
import io
import json
import socket
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from cli.errors import BadResponse, ConnectionFailed, TimedOut

MAX_BODY = 16 * 1024 * 1024  # a JSON answer or one event; the largest real ones are a few hundred KiB
MAX_ERROR_BODY = 64 * 1024  # an error's body: only its message is read


class Budget:
    """By when an answer must have come (time.monotonic()), the longest silence between two reads,
    and what reaching the end means (the request's limit, or the command's). A plain class: see
    cli/shapes.py on dataclasses."""

    def __init__(self, ends: float, idle: float, late: Callable[[], Exception]) -> None:
        self.ends, self.idle, self.late = ends, idle, late

    def left(self) -> float:
        left = self.ends - time.monotonic()
        if left <= 0:
            raise self.late()
        return left


class _Paced(io.RawIOBase):
    """The socket's reads, each waiting no longer than the budget allows."""

    def __init__(self, inner: io.BufferedReader, sock: socket.socket, budget: Budget) -> None:
        super().__init__()
        self.inner, self.sock, self.budget = inner, sock, budget

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        wait = min(self.budget.idle, self.budget.left())
        self.sock.settimeout(max(wait, 0.001))
        try:
            return self.inner.readinto1(buffer)
        except TimeoutError:
            if wait < self.budget.idle:
                raise self.budget.late() from None
            raise TimedOut(f"the server sent nothing for {self.budget.idle:g} s (--timeout)") from None

    def fileno(self) -> int:
        return self.inner.fileno()

    def close(self) -> None:
        self.inner.close()
        super().close()


class _PacedResponse(http.client.HTTPResponse):
    def __init__(self, sock: socket.socket, *args: Any, budget: Budget, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = io.BufferedReader(_Paced(self.fp, sock, budget))  # type: ignore[arg-type]


class _PacedHTTP(http.client.HTTPConnection):
    def __init__(self, *args: Any, budget: Budget, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.response_class = functools.partial(_PacedResponse, budget=budget)  # type: ignore[assignment]


class _PacedHTTPS(http.client.HTTPSConnection):
    def __init__(self, *args: Any, budget: Budget, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.response_class = functools.partial(_PacedResponse, budget=budget)  # type: ignore[assignment]


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, budget: Callable[[], Budget]) -> None:
        super().__init__()
        self.budget = budget

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_PacedHTTP, budget=self.budget()), req)  # type: ignore[arg-type]


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, budget: Callable[[], Budget]) -> None:
        super().__init__()
        self.budget = budget

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_PacedHTTPS, budget=self.budget()), req,  # type: ignore[arg-type]
                            context=self._context)  # type: ignore[attr-defined]


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower(), parts.hostname, parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())


class _Redirects(urllib.request.HTTPRedirectHandler):
    """urllib copies every header onto a redirect, wherever it leads: the token must not follow
    one to another host, port or scheme; and a redirect leads to http(s) only (urllib would go
    to ftp://)."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        if urllib.parse.urlsplit(newurl).scheme.lower() not in ("http", "https"):
            raise BadResponse(f"a redirect to {newurl[:200]!r}, which is not an http(s) address")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            new.remove_header("Authorization")
        return new


def opener(budget: Callable[[], Budget]) -> urllib.request.OpenerDirector:
    """An opener whose every answer is read within `budget()`, the budget of the request being sent."""
    return urllib.request.build_opener(_Redirects, _HTTPHandler(budget), _HTTPSHandler(budget))


def _size(count: int) -> str:
    return f"{count // 2**20} MiB" if count >= 2**20 else f"{count // 1024} KiB"


def read_capped(response: Any, cap: int = MAX_BODY) -> bytes:
    """The whole body, or BadResponse once it passes `cap` bytes (said or seen); ConnectionFailed
    when it ends before its Content-Length."""
    said = str(response.headers.get("Content-Length") or "").strip()
    declared = int(said) if said.isdigit() and len(said) < 20 else None
    if declared is not None and declared > cap:
        raise BadResponse(f"the response is too large ({declared} bytes; the limit is {_size(cap)})")
    chunks, got = [], 0
    while got <= cap:
        chunk = response.read(min(1 << 16, cap + 1 - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    if got > cap:
        raise BadResponse(f"the response is too large (over the limit of {_size(cap)})")
    if declared is not None and got < declared:
        raise ConnectionFailed(f"the server's answer was cut short ({got} of its {declared} bytes)")
    return b"".join(chunks)


def parse_json(raw: bytes | str, content_type: str = "application/json") -> Any:
    """JSON from the server, or BadResponse: not JSON (an HTML page), not UTF-8, or nested too deep."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise BadResponse("JSON nested too deeply to read") from None
    except UnicodeDecodeError:
        raise BadResponse("text that is not UTF-8") from None
    except ValueError as exc:
        if content_type == "text/html":
            raise BadResponse("an HTML page, not JSON (is --server the API's address?)") from None
        raise BadResponse(f"invalid JSON ({str(exc)[:100]})") from None

"""A hostile HTTP server on 127.0.0.1 for the CLI's tests: each URL names a target (one endpoint of
the API) and a behaviour, e.g. http://127.0.0.1:PORT/problems/drip_body; the CLI, given that as its
server, asks /problems/drip_body/api/v1/problems and gets the behaviour, and every other endpoint
a good answer (GOOD, GOOD_EVENTS). Behaviours: broken, HTML, deep or mistyped JSON, bodies cut short,
dripped, endless or huge, redirect loops, HTML errors, resets, junk or endless event streams.

Raw sockets, not http.server: a behaviour must be free to break HTTP itself. Every endless
behaviour stops when the client goes away, when the server stops, or after ENDLESS_S seconds.
"""

from __future__ import annotations

import json
import socket
import socketserver
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

UUID = "0123abcd-0000-4000-8000-000000000000"
ENDLESS_S = 90.0  # far beyond any CLI limit the tests set; the outer subprocess timeout is shorter still
DRIP_S = 0.1

# What the CLI reads of each endpoint, and nothing more: a mutation of any of it must be noticed.
GOOD: dict[str, Any] = {
    "problems": [{"slug": "vector-add", "title": "Vector Addition", "difficulty": "easy", "tags": ["memory-bound"],
                  "data_types": ["float"], "solved_by": 1, "your_best": [], "best_speed_of_light": []}],
    "problem": {"slug": "vector-add", "title": "Vector Addition", "difficulty": "easy",
                "parameters": [{"name": "a", "type": "float", "c_types": {"cpp": "float", "hip": "float",
                                                                          "cuda": "float"},
                                "pointer": True, "output": False, "shape": ["n"]}],
                "signatures": {"cpp": 'extern "C" void solution(const float* a)'}},
    "pools": [{"name": "local", "device": "host", "languages": ["cpp"], "warm_vms": 0, "max_vms": 2,
               "hourly_rate": "0.000000", "default": True,
               "offers": [{"language": "cpp", "modes": ["check"], "emulated": False}]}],
    "submission": {"id": UUID, "problem": "vector-add", "language": "cpp", "mode": "check", "pool": "local",
                   "status": "IN_QUEUE", "status_reason": "", "is_terminal": False, "cost_usd": "0.000000",
                   "leaderboard": {"state": "not_entered"}},
    "submissions": {"count": 1, "results": [{"id": UUID, "created_at": "2026-01-01T00:00:00Z", "problem": "vector-add",
                                             "language": "cpp", "mode": "check", "pool": "local",
                                             "status": "IN_QUEUE", "score_ms": 1.5, "cost_usd": "0.000000"}]},
    "leaderboard": {"problem": "vector-add", "pool": "local",
                    "rows": [{"rank": 1, "user": "u", "score_ms": 1.5, "ci95_ms": [1.4, 1.6], "speedup": 1.2,
                              "language": "cpp", "submitted_at": "2026-01-01T00:00:00Z", "submission": None}]},
    "create": {"id": UUID, "pool": "local", "emulated": False},
    "cancel": {"id": UUID, "status": "CANCELLED", "status_reason": "cancelled by its owner"},
    "token": {"token": "t0k3n", "username": "u"},
}
GOOD_EVENTS = [{"seq": 1, "type": "STATUS", "payload": {"status": "CHECKING"}},
               {"seq": 2, "type": "TEST_RESULT", "payload": {"case": "n=1", "index": 0, "total": 1, "passed": True}},
               {"seq": 3, "type": "RESULT", "payload": {"status": "CHECKED", "reason": "all 1 tests passed"}}]
PATHS = {"problems": "/problems", "problem": "/problems/vector-add", "leaderboard": "/problems/vector-add/leaderboard",
         "pools": "/pools", "submissions": "/submissions", "create": "/submissions",
         "submission": f"/submissions/{UUID}", "cancel": f"/submissions/{UUID}/cancel",
         "events": f"/submissions/{UUID}/events", "token": "/auth/token"}


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"retry: 2000\n: a stream\n\n" + b"".join(
        f"id: {e['seq']}\nevent: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def mutated(value: Any, how: str) -> Any:
    """The good answer with every value of one kind made wrong (its shape stays, its types do not)."""
    if how == "list_for_object":  # the top level only: a list where an object is, an object where a list
        return {"results": value} if isinstance(value, list) else [value]
    if isinstance(value, dict):
        return {} if how == "missing_keys" else {k: mutated(v, how) for k, v in value.items()}
    if isinstance(value, list):
        return {} if how == "objects_for_lists" else [mutated(v, how) for v in value]
    if how == "null_everywhere":
        return None
    if how == "strings_for_scalars" and isinstance(value, bool | int | float):
        return str(value)
    if how == "numbers_for_strings" and isinstance(value, str):
        return 7
    return value


MUTATIONS = ("list_for_object", "null_everywhere", "missing_keys", "strings_for_scalars", "numbers_for_strings",
             "objects_for_lists")


class Exchange:
    """One request and the means to answer it, whatever the answer does to HTTP."""

    def __init__(self, sock: socket.socket, stopping: threading.Event) -> None:
        self.sock, self.stopping = sock, stopping
        self.method, self.path, self.endpoint, self.target, self.behaviour = "", "", "", "", ""
        self.started = time.monotonic()

    def read_request(self) -> bool:
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 1 << 16:
            chunk = self.sock.recv(4096)
            if not chunk:
                return False
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.method, self.path = lines[0].split(" ")[:2]
        length = next((int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")),
                      0)
        while len(body) < min(length, 1 << 20):
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            body += chunk
        prefix, _, rest = self.path.partition("/api/v1")
        self.endpoint = rest.split("?")[0]
        self.target, _, self.behaviour = prefix.strip("/").partition("/")
        return True

    def alive(self) -> bool:
        return not self.stopping.is_set() and time.monotonic() - self.started < ENDLESS_S

    def send(self, data: bytes) -> bool:
        try:
            self.sock.sendall(data)
            return True
        except OSError:  # the client went away: what the endless behaviours wait for
            return False

    def answer(self, status: str, body: bytes, content_type: str = "application/json", *,
               length: int | None = None, extra: str = "") -> None:
        self.send(self.head(status, content_type, length=len(body) if length is None else length, extra=extra) + body)

    @staticmethod
    def head(status: str, content_type: str, *, length: int | None = None, extra: str = "") -> bytes:
        said = f"Content-Length: {length}\r\n" if length is not None else ""
        return (f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n{said}{extra}Connection: close\r\n\r\n"
                .encode())

    def endless(self, piece: bytes, pause: float = 0.0) -> None:
        while self.alive() and self.send(piece):
            if pause:
                time.sleep(pause)

    def good(self) -> bytes:
        route = next((name for name, path in PATHS.items() if path == self.endpoint and
                      (name != "create" or self.method == "POST") and (name != "submissions" or self.method == "GET")),
                     "")
        return sse(GOOD_EVENTS) if route == "events" else json.dumps(GOOD.get(route)).encode()


HTML = b"<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"


def _drip(x: Exchange, data: bytes) -> None:
    for index in range(len(data)):
        if not x.alive() or not x.send(data[index:index + 1]):
            return
        time.sleep(DRIP_S)


def _reset(x: Exchange) -> None:
    x.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close() sends a RST


def _silent(x: Exchange) -> None:
    x.sock.settimeout(0.2)
    while x.alive():
        try:
            if not x.sock.recv(1):
                return
        except TimeoutError:
            continue
        except OSError:
            return


def _chunked_endless(x: Exchange) -> None:
    if x.send(x.head("200 OK", "application/json", extra="Transfer-Encoding: chunked\r\n") + b"1\r\n[\r\n"):
        x.endless(b"4000\r\n" + b"0," * 0x2000 + b"\r\n")


def _redirect(x: Exchange, location: str) -> None:
    x.answer("302 Found", b"", extra=f"Location: {location}\r\n")


def _ping_pong(x: Exchange) -> None:
    _redirect(x, x.path.replace("?hop", "") if "?hop" in x.path else x.path + ("&" if "?" in x.path else "?") + "hop")


def _stream(x: Exchange, body: bytes = b"") -> bool:
    return x.send(x.head("200 OK", "text/event-stream") + body)


def _statuses_forever(x: Exchange) -> None:
    if not _stream(x):
        return
    seq = 0
    while x.alive():
        seq += 1
        event = {"seq": seq, "type": "STATUS", "payload": {"status": "CHECKING"}}
        if not x.send(f"id: {seq}\nevent: STATUS\ndata: {json.dumps(event)}\n\n".encode()):
            return
        time.sleep(0.05)


def _huge_event(x: Exchange) -> None:
    if _stream(x, b'id: 1\nevent: STATUS\ndata: {"seq": 1, "type": "STATUS", "payload": {"status": "\n'):
        x.endless(b"data: " + b"x" * 65536 + b"\n")


JUNK_EVENT = b'id: 1\nevent: TEST_RESULT\ndata: {"seq": 1, "type": "TEST_RESULT", "payload": {"index": "first"}}\n\n'
BEHAVIOURS: dict[str, Callable[[Exchange], object]] = {
    # The body: not JSON, or JSON nobody can read.
    "broken_json": lambda x: x.answer("200 OK", x.good()[:len(x.good()) // 2]),
    "html_200": lambda x: x.answer("200 OK", HTML, "text/html"),
    "deep_array": lambda x: x.answer("200 OK", b"[" * 100_000),
    "deep_object": lambda x: x.answer("200 OK", b'{"a":' * 100_000),
    "bad_utf8": lambda x: x.answer("200 OK", b'["\xff\xfe caf\xe9"]'),
    "empty_200": lambda x: x.answer("200 OK", b""),
    "huge_number": lambda x: x.answer("200 OK", b"[" + b"9" * 100_000 + b"]"),
    **{how: (lambda x, how=how: x.answer("200 OK", json.dumps(mutated(json.loads(x.good()), how)).encode()))
       for how in MUTATIONS},
    # The transport: cut, dripped, silent, endless, huge, redirected, refused, reset, not HTTP.
    "short_body": lambda x: x.answer("200 OK", x.good()[:10], length=len(x.good()) + 1000),
    "drip_body": lambda x: (x.send(x.head("200 OK", "application/json", length=len(x.good()) * 50))
                            and _drip(x, x.good() * 50)),
    "drip_headers": lambda x: _drip(x, x.head("200 OK", "application/json", extra="X-Pad: " + "p" * 2000 + "\r\n")),
    "silent": _silent,
    "huge_advertised": lambda x: x.send(x.head("200 OK", "application/json", length=1 << 30)) and x.endless(
        b"0" * 65536),
    "huge_streamed": lambda x: x.send(x.head("200 OK", "application/json") + b"[") and x.endless(b"0," * 32768),
    "huge_chunked": _chunked_endless,
    "bad_chunked": lambda x: x.send(x.head("200 OK", "application/json", extra="Transfer-Encoding: chunked\r\n")
                                    + b"zz\r\n{}\r\n"),
    "redirect_loop": lambda x: _redirect(x, x.path),
    "redirect_ping_pong": _ping_pong,
    "redirect_ftp": lambda x: _redirect(x, "ftp://127.0.0.1:1/pub"),
    "http_404_html": lambda x: x.answer("404 Not Found", HTML, "text/html"),
    "http_500_html": lambda x: x.answer("500 Internal Server Error", HTML, "text/html"),
    "http_502_html": lambda x: x.answer("502 Bad Gateway", HTML, "text/html"),
    "http_503_html": lambda x: x.answer("503 Service Unavailable", HTML, "text/html", extra="Retry-After: 5\r\n"),
    "error_junk_json": lambda x: x.answer("400 Bad Request", b'{"message": ["no"], "extra": "x"}'),
    "error_huge_body": lambda x: x.send(x.head("500 Internal Server Error", "text/html", length=1 << 30)) and x.endless(
        b"<p>" * 20000),
    "error_drip": lambda x: x.send(x.head("503 Service Unavailable", "application/json", length=1000)) and _drip(
        x, b" " * 1000),
    "reset": _reset,
    "close_no_answer": lambda x: None,
    "not_http": lambda x: x.send(b"SSH-2.0-OpenSSH_9.6\r\n"),
    "huge_header": lambda x: x.answer("200 OK", x.good(), extra="X-Junk: " + "j" * 100_000 + "\r\n"),
    "many_headers": lambda x: x.answer("200 OK", x.good(), extra="".join(f"X-H{i}: {i}\r\n" for i in range(500))),
    # The event stream: junk, endless, silent, dripped, huge, refused, or not a stream at all.
    "sse_junk_data": lambda x: _stream(x, b"id: 1\nevent: STATUS\ndata: {not json\n\n"),
    "sse_wrong_shape": lambda x: _stream(x, b"data: [1, 2, 3]\n\n"),
    "sse_payload_types": lambda x: _stream(x, JUNK_EVENT),
    "sse_bad_utf8": lambda x: _stream(x, b'data: {"seq": 1, "type": "ST\xffATUS"}\n\n'),
    "sse_html": lambda x: x.answer("200 OK", HTML, "text/html"),
    "sse_json": lambda x: x.answer("200 OK", b"[]"),
    "sse_heartbeats_forever": lambda x: _stream(x) and x.endless(b": heartbeat\n\n", 0.05),
    "sse_statuses_forever": _statuses_forever,
    "sse_silent": lambda x: _stream(x) and _silent(x),
    "sse_drip": lambda x: _stream(x) and _drip(x, sse(GOOD_EVENTS)[:-30] * 100),
    "sse_endless_line": lambda x: _stream(x, b"data: ") and x.endless(b"x" * 65536),
    "sse_huge_event": _huge_event,
    "sse_ends_at_once": lambda x: _stream(x),
    "sse_http_500": lambda x: x.answer("500 Internal Server Error", HTML, "text/html"),
    "sse_reset": _reset,
    "sse_error_event": lambda x: _stream(x, b'event: error\ndata: {"message": "Your token was revoked."}\n\n'),
}


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        exchange = Exchange(self.request, self.server.stopping)
        try:
            if not exchange.read_request():
                return
        except (OSError, ValueError, IndexError):
            return
        hostile = PATHS.get(exchange.target) == exchange.endpoint and exchange.behaviour in BEHAVIOURS
        if hostile:
            BEHAVIOURS[exchange.behaviour](exchange)
        else:
            body = exchange.good()
            exchange.answer("200 OK", body, "text/event-stream" if body.startswith(b"retry:") else "application/json")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.stopping = threading.Event()


@contextmanager
def hostile_server() -> Iterator[str]:
    """The server's base URL (http://127.0.0.1:PORT) while the block runs."""
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

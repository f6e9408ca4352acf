"""The CLI is safe against a hostile server text (security review L7): escape sequences and control
characters are stripped before printing, and the token never follows a redirect to another origin."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from cli.api import Client
from cli.output import Printer, clean

HOSTILE = "wrong\x1b]0;pwned\x07 answer\x1b[2J\x1b[1;1H\x1bc\x9b31m\x00\r at index 3\x07"


def test_escape_sequences_and_control_characters_are_stripped() -> None:
    assert clean(HOSTILE) == "wrong answer at index 3"
    assert clean("line 1\n\tline 2 ✓ μs") == "line 1\n\tline 2 ✓ μs"


def test_every_printed_server_string_is_clean(capsys: Any) -> None:
    out = Printer()
    out.detail({"id": "x", "problem": "p", "language": "cpp", "mode": "check", "pool": "local", "status": "ERROR",
                "status_reason": HOSTILE, "results": {"tests": [{"case": HOSTILE, "message": HOSTILE}]}})
    out.event({"type": "RESULT", "payload": {"status": "ERROR", "reason": HOSTILE}})
    out.event({"type": "COMPILE_RESULT", "payload": {"ok": False, "output": HOSTILE, "seconds": 1}})
    out.table(["pool"], [[HOSTILE]])
    out.error(HOSTILE)
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert "answer" in stream and not any(c in stream for c in "\x1b\x07\x9b\x00\r")


class Recorder(BaseHTTPRequestHandler):
    seen: list[tuple[int, str | None]] = []
    redirect_to = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.seen.append((self.server.server_address[1], self.headers.get("Authorization")))
        if self.path.startswith("/api/v1/me") and self.redirect_to:
            self.send_response(302)
            self.send_header("Location", self.redirect_to)
            self.end_headers()
            return
        body = b'{"username": "u"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[tuple[str, str]]:
    started = [ThreadingHTTPServer(("127.0.0.1", 0), Recorder) for _ in range(2)]
    for server in started:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    Recorder.seen = []
    yield tuple(f"http://127.0.0.1:{s.server_address[1]}" for s in started)  # type: ignore[misc]
    for server in started:
        server.shutdown()
        server.server_close()


def test_the_token_does_not_follow_a_redirect_to_another_origin(servers: tuple[str, str]) -> None:
    ours, theirs = servers
    Recorder.redirect_to = f"{theirs}/elsewhere"
    assert Client(ours, "s3cret").call("GET", "/me") == {"username": "u"}
    assert Recorder.seen == [(int(ours.rsplit(":", 1)[1]), "Token s3cret"), (int(theirs.rsplit(":", 1)[1]), None)]


def test_a_redirect_on_the_same_origin_keeps_the_token(servers: tuple[str, str]) -> None:
    ours, _ = servers
    Recorder.redirect_to = f"{ours}/api/v1/problems"
    Client(ours, "s3cret").call("GET", "/me")
    assert [auth for _, auth in Recorder.seen] == ["Token s3cret", "Token s3cret"]

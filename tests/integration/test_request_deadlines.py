"""Issue 40: slow request bodies had no deadline (500 connections sending 1 byte every 2 s were all
open after 60 s). The production server (core.webserver) on 127.0.0.1 with a body deadline of 1 s:
a body that trickles, or never comes, gets 408 in the error shape and the connection is closed long
before the body is done; a body sent at once is served as ever."""

from __future__ import annotations

import json
import select
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.integration.conftest import Stack

pytestmark = pytest.mark.integration
BODY = json.dumps({"username": "nobody", "password": "x" * 60}).encode()  # about 100 bytes
STEP_S = 0.3  # one byte per step: the whole body would take about 30 s
TRICKLERS = 3


def request_head(length: int) -> bytes:
    return (b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % length)


def answer_of(sock: socket.socket) -> bytes:
    """What the server sent before it closed the connection."""
    chunks = []
    while True:
        try:
            data = sock.recv(65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def trickle(port: int, outcome: dict[str, Any]) -> None:
    """The headers at once, then the body one byte a step until the server ends the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request_head(len(BODY)))
        outcome["sent"] = 0
        try:
            for byte in BODY:
                sock.sendall(bytes([byte]))
                outcome["sent"] += 1
                readable, _, _ = select.select([sock], [], [], STEP_S)
                if readable:  # the server answered (or closed): stop sending
                    break
        except OSError:
            pass
        outcome["answer"] = answer_of(sock)


def assert_408(answer: bytes) -> None:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer[:200]
    assert set(json.loads(body)) == {"message", "extra"}


def test_a_body_that_does_not_arrive_in_time_gets_408_and_the_connection_closes(stack: Stack) -> None:
    stack.env.update({"HIPJUDGE_WEB_BODY_TIMEOUT": "1", "HIPJUDGE_WEB_HEADER_TIMEOUT": "10"})
    port = urlsplit(stack.start_web()).port or 0
    outcomes: list[dict[str, Any]] = [{} for _ in range(TRICKLERS)]
    threads = [threading.Thread(target=trickle, args=(port, outcome)) for outcome in outcomes]
    for thread in threads:
        thread.start()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as silent:  # the headers, and no body
        silent.sendall(request_head(len(BODY)))
        assert_408(answer_of(silent))
    for thread in threads:
        thread.join(60)
    for outcome in outcomes:
        assert outcome["sent"] < len(BODY), "the whole body went in: no deadline"
        assert_408(outcome["answer"])
    # A body sent whole is served (a wrong password: 401), on a connection that stayed within it.
    with socket.create_connection(("127.0.0.1", port), timeout=30) as prompt:
        prompt.sendall(request_head(len(BODY)) + BODY)
        answer = prompt.recv(65536)
        assert answer.startswith(b"HTTP/1.1 401") or answer.startswith(b"HTTP/1.1 400"), answer[:200]

"""Floods cost a web process a bounded amount (issue 32, defects 1 and 5), against the production web
server (core.webserver, as scripts/serve.sh web runs it):

- connections that never finish their headers, or send nothing, are closed by the server (6,000 of
  them had stayed open 45 s and more); one that trickles its headers a byte at a time too;
- one user's flood of event streams on one submission gets the cap of streams and 429s for the rest;
- deeply nested JSON bodies are 400s, never 500s;

while /healthz keeps answering. Every loop is bounded in count and time.
"""

from __future__ import annotations

import http.client
import json
import selectors
import socket
import threading
import time
from typing import Any

import pytest

from accounts.tokens import token_create
from submissions.services import submission_create
from tests.conftest import read_source
from tests.integration.conftest import Stack

pytestmark = [pytest.mark.integration, pytest.mark.faults, pytest.mark.timeout(300),
              pytest.mark.usefixtures("problems_loaded", "local_pool")]
SLOW = 300  # connections that never finish their headers (half of them send nothing at all)
STREAMS = 40  # event streams one user tries to open
CAP = 8  # HIPJUDGE_SSE_MAX_PER_USER's default
CLOSE_WAIT_S = 60  # how long the test waits for the server to close them (the timeout is 1 s here)


def healthz(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status
    finally:
        conn.close()


def open_slow_connections(port: int) -> list[socket.socket]:
    held = []
    for i in range(SLOW):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if i % 2:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and never the end
        held.append(sock)
    return held


def closed_by_server(held: list[socket.socket], timeout: float) -> int:
    """How many of `held` the server closed (EOF or reset) within `timeout` seconds."""
    selector = selectors.DefaultSelector()
    for sock in held:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    closed, deadline = 0, time.monotonic() + timeout
    while closed < len(held) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1.0):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                selector.unregister(sock)
                closed += 1
    selector.close()
    return closed


def trickle(port: int, outcome: dict[str, Any]) -> None:
    """Headers sent one byte every 0.2 s: each byte is new data, so only a deadline on the whole
    header (not an idle timeout) ends it before its 200 bytes are sent."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: " + b"a" * 200
    outcome["sent"] = 0
    try:
        for byte in request:
            sock.sendall(bytes([byte]))
            outcome["sent"] += 1
            time.sleep(0.2)
        outcome["closed"] = False
    except OSError:
        outcome["closed"] = True
    finally:
        sock.close()


def test_floods_of_slow_connections_streams_and_deep_bodies_are_bounded(stack: Stack, owner: Any) -> None:
    stack.env["HIPJUDGE_WEB_HEADER_TIMEOUT"] = "1"
    url = stack.start_web()
    port = int(url.rsplit(":", 1)[1])

    # ---- slow headers and silent connections --------------------------------------------------
    outcome: dict[str, Any] = {}
    trickler = threading.Thread(target=trickle, args=(port, outcome), daemon=True)
    trickler.start()
    held = open_slow_connections(port)
    assert healthz(port) == 200  # served meanwhile
    closed = closed_by_server(held, CLOSE_WAIT_S)
    for sock in held:
        sock.close()
    trickler.join(timeout=CLOSE_WAIT_S)
    assert closed == SLOW, f"the server closed {closed} of {SLOW} connections that never finished their headers"
    assert outcome.get("closed") is True, outcome  # cut before its headers were all sent

    # ---- one user's flood of event streams ----------------------------------------------------
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    token = token_create(user=owner).key
    statuses, streams = [], []
    for _ in range(STREAMS):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"/api/v1/submissions/{submission.pk}/events", headers={"Authorization": f"Token {token}"})
        response = conn.getresponse()
        statuses.append(response.status)
        if response.status == 429:
            assert set(json.loads(response.read())) == {"message", "extra"}
            conn.close()
        else:
            streams.append(conn)
    assert statuses.count(200) == CAP, statuses
    assert statuses.count(429) == STREAMS - CAP, statuses
    assert healthz(port) == 200
    for conn in streams:
        conn.close()

    # ---- deep bodies, without logging in ------------------------------------------------------
    for path in ("/api/v1/auth/token", "/api/v1/submissions", f"/api/v1/submissions/{submission.pk}"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("PATCH" if path.endswith(str(submission.pk)) else "POST", path, body=b"[" * 1000,
                     headers={"Content-Type": "application/json", "Authorization": f"Token {token}"})
        response = conn.getresponse()
        assert response.status == 400, path
        assert set(json.loads(response.read())) == {"message", "extra"}, path
        conn.close()
    web_log = "".join(proc.output() for proc in stack.procs if proc.name == "web")
    assert "Internal Server Error" not in web_log
    assert "RecursionError" not in web_log

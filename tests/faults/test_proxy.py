"""The fault test's database proxy (tests/faults/harness.py) ends cleanly: stopping it leaves no
connection handler pending on its loop, whatever the handler was waiting for, and logs no error
(the fault test's output had shown both: tasks destroyed while pending, then cancelled handlers)."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from typing import Any

import pytest

from tests.faults import harness
from tests.faults.harness import TcpProxy

pytestmark = pytest.mark.faults


def test_stopping_the_proxy_ends_a_handler_still_waiting_for_the_database(monkeypatch: pytest.MonkeyPatch,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    upstream = socket.create_server(("127.0.0.1", 0))
    waiting = threading.Event()

    async def database_that_never_answers(*args: Any, **kwargs: Any) -> Any:
        waiting.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(harness.asyncio, "open_connection", database_that_never_answers)
    proxy = TcpProxy("127.0.0.1", upstream.getsockname()[1]).start()
    try:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=5):
            assert waiting.wait(timeout=5)
            with caplog.at_level(logging.ERROR, logger="asyncio"):
                proxy.stop()
            assert not asyncio.all_tasks(proxy._loop)
            assert proxy._loop.is_closed()
            assert not caplog.records, caplog.text
    finally:
        upstream.close()


def test_stopping_the_proxy_ends_its_open_connections(caplog: pytest.LogCaptureFixture) -> None:
    upstream = socket.create_server(("127.0.0.1", 0))
    proxy = TcpProxy("127.0.0.1", upstream.getsockname()[1]).start()
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as client:
        served, _ = upstream.accept()
        client.sendall(b"ping")
        assert served.recv(64) == b"ping"
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            proxy.stop()
        assert not asyncio.all_tasks(proxy._loop)
        assert not caplog.records, caplog.text
        deadline = time.monotonic() + 5
        while served.recv(64) and time.monotonic() < deadline:  # the database sees its client go
            pass
        assert client.recv(64) == b""
    served.close()
    upstream.close()

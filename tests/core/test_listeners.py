"""Issue 40 (throughput): each web process listens on a socket of its own (core.listeners). The
address the supervisor holds for them is its own: another program cannot bind it, with
SO_REUSEADDR or without, even before a worker listens; a worker that cannot bind ends as a failed
start (exit 3), which uvicorn does not restart over and over."""

from __future__ import annotations

import errno
import pickle
import socket

import pytest

from core.listeners import OwnListener, bind_listener, reserve


def plain_bind(port: int, *, reuse_addr: bool) -> None:
    with socket.socket() as sock:
        if reuse_addr:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))


def test_the_reserved_address_is_kept_from_others_and_shared_by_the_workers() -> None:
    held = reserve("127.0.0.1", 0)
    try:
        port = held.getsockname()[1]
        assert port != 0
        for reuse_addr in (False, True):
            with pytest.raises(OSError) as refused:
                plain_bind(port, reuse_addr=reuse_addr)
            assert refused.value.errno == errno.EADDRINUSE
        # What reaches a worker (pickled) is a socket it binds for itself, on that port.
        workers = [pickle.loads(pickle.dumps(OwnListener(held))) for _ in range(2)]
        try:
            for worker in workers:
                assert isinstance(worker, socket.socket)
                assert worker.getsockname() == ("127.0.0.1", port)
                worker.listen()
            assert workers[0].fileno() != workers[1].fileno()
        finally:
            for worker in workers:
                worker.close()
    finally:
        held.close()


def test_an_address_in_use_stops_the_supervisor_and_a_worker_as_failed_starts() -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(SystemExit) as supervisor:
            reserve("127.0.0.1", port)
        assert supervisor.value.code == 3
        with pytest.raises(SystemExit) as worker:
            bind_listener("127.0.0.1", port)
        assert worker.value.code == 3

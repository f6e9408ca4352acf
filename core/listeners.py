"""Each web process listens on a socket of its own (SO_REUSEPORT), so that the kernel spreads new
connections over the processes, instead of the first process to wake taking them all.

uvicorn's --workers binds one listening socket in its supervisor and every worker accepts from it.
A worker woken by a new connection accepts everything waiting in one go (uvloop, like asyncio,
loops on accept until the queue is empty), whatever it already serves: 50 kept-alive connections
opened together were split 39 / 11 between 2 processes, and the 39 clients waited three times as
long as the 11 (docs/benchmarks.md). With SO_REUSEPORT every worker binds its own socket to the
same address and the kernel hashes each new connection to one of them: an even split on average.

The supervisor keeps the address bound (not listening, so it is handed no connection) while it
runs: the workers may bind it again, another program may not. A worker's socket closes with the
worker (a crash, a restart, the end of a graceful shutdown): connections still waiting in its
accept queue are reset, where a shared socket kept them for another worker (Linux 5.14+ hands them
to the other sockets with `sysctl net.ipv4.tcp_migrate_req=1`, docs/operations.md). uvicorn starts
a new worker for a dead one, which binds anew.
"""

from __future__ import annotations

import logging
import socket
import sys
from typing import Any

from uvicorn.server import STARTUP_FAILURE

logger = logging.getLogger("uvicorn.error")


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _socket(host: str, *, reuse_addr: bool, reuse_port: bool) -> socket.socket:
    sock = socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP)
    if reuse_addr:  # as uvicorn: a restart binds past the TIME_WAIT connections of the server before
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return sock


def reserve(host: str, port: int) -> socket.socket:
    """In the supervisor: the address, bound for its workers to share; exits as uvicorn does when
    the address is taken. A plain bind first, so that a server already listening there (ours
    included, whose sockets would accept a fellow) is an error, not a silent partner."""
    try:
        with _socket(host, reuse_addr=True, reuse_port=False) as probe:
            probe.bind((host, port))
            port = probe.getsockname()[1]  # port 0: the one the kernel chose, for every worker
        # Without SO_REUSEADDR: a socket that is bound but not listening and has it would not keep
        # another program's SO_REUSEADDR bind off the address (while the workers start, or after
        # they all died). Our own TIME_WAIT connections carry SO_REUSEPORT, and do not stand in its way.
        held = _socket(host, reuse_addr=False, reuse_port=True)
        held.bind((host, port))
    except OSError as exc:
        logger.error(exc)
        sys.exit(STARTUP_FAILURE)
    logger.info("Uvicorn running on http://%s:%d (Press CTRL+C to quit)", host, port)
    return held


def bind_listener(host: str, port: int) -> socket.socket:
    """In a worker: its own socket on the shared address (uvicorn's server makes it listen). A bind
    that fails ends the worker as a failed start (exit 3), which uvicorn's supervisor does not
    restart over and over."""
    sock = _socket(host, reuse_addr=True, reuse_port=True)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        logger.error("could not listen on %s:%d: %s", host, port, exc)
        sys.exit(STARTUP_FAILURE)
    return sock


class OwnListener:
    """Stands in uvicorn's list of the supervisor's sockets, which reaches each worker pickled: it
    unpickles as a socket the worker binds for itself (bind_listener)."""

    def __init__(self, reserved: socket.socket) -> None:
        self.host, self.port = reserved.getsockname()[:2]

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return bind_listener, (self.host, self.port)

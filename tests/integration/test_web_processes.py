"""Issue 40 (throughput): with one listening socket shared by the web processes, the first process
to wake accepted every waiting connection (50 kept-alive connections opened together were split
39 / 11, and the 39 waited three times as long). `python -m core.webserver --workers 2` gives each
process a listening socket of its own (SO_REUSEPORT), so the kernel spreads the connections; the
address stays the server's own: a second server on it fails at start as before."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.integration.conftest import ROOT, Stack, free_port, wait_for

pytestmark = pytest.mark.integration
CONNECTIONS = 40
START_S = 90


def sockets_by_inode(port: int) -> dict[int, str]:
    """The inode of every TCP socket on 127.0.0.1:port (this side), with its state: LISTEN or ESTABLISHED."""
    local = f"0100007F:{port:04X}"
    states = {"0A": "LISTEN", "01": "ESTABLISHED"}
    found = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == local and fields[3] in states:
            found[int(fields[9])] = states[fields[3]]
    return found


def held_by(pid: int, inodes: dict[int, str]) -> list[tuple[int, str]]:
    held = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inode = int(target[8:-1])
            if inode in inodes:
                held.append((inode, inodes[inode]))
    return held


def workers_of(pid: int) -> list[int]:
    """The supervisor's workers (its children but multiprocessing's resource tracker)."""
    children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return [child for child in children if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()]


def command(port: int) -> list[str]:
    return [sys.executable, "-m", "core.webserver", "--host", "127.0.0.1", "--port", str(port), "--workers", "2",
            "--no-access-log", "--timeout-graceful-shutdown", "2"]


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(100).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def test_each_web_process_listens_for_itself_and_the_connections_are_spread(stack: Stack) -> None:
    port = free_port()
    proc = stack._spawn("web", command(port))
    server = proc.popen
    clients: list[socket.socket] = []
    try:
        wait_for(lambda: server.poll() is not None or answers(port), START_S, "the web server to answer")
        assert server.poll() is None, proc.output()
        wait_for(lambda: len(workers_of(server.pid)) >= 2 and all(
            any(state == "LISTEN" for _, state in held_by(w, sockets_by_inode(port))) for w in workers_of(server.pid)),
            START_S, "both workers to listen")
        workers = workers_of(server.pid)
        listening = {w: [i for i, state in held_by(w, sockets_by_inode(port)) if state == "LISTEN"] for w in workers}
        assert len({inode for inodes in listening.values() for inode in inodes}) == 2, listening  # not one shared
        # The supervisor holds the address without listening: it is handed no connection.
        assert [state for _, state in held_by(server.pid, sockets_by_inode(port))] == []

        for _ in range(CONNECTIONS):  # opened together, kept open: as a load balancer's or a bench's
            clients.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        for client in clients:  # each is accepted by now: it is answered
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert client.recv(100).startswith(b"HTTP/1.1 200")
        served = Counter({w: sum(state == "ESTABLISHED" for _, state in held_by(w, sockets_by_inode(port)))
                          for w in workers})
        assert sum(served.values()) == CONNECTIONS, served
        # An even split on average (binomial): fewer than 5 of 40 on a worker has a chance of 2e-7.
        assert min(served.values()) >= 5, served

        second = subprocess.run(command(port), cwd=ROOT, env=stack.env, capture_output=True, text=True,
                                timeout=60, stdin=subprocess.DEVNULL)
        assert second.returncode == 3, second.stdout + second.stderr
        assert "Address already in use" in second.stdout + second.stderr
        assert answers(port)  # the first one serves on
    finally:
        for client in clients:
            client.close()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            stack.kill(proc)
    deadline = time.monotonic() + 10
    while sockets_by_inode(port) and time.monotonic() < deadline:  # TIME_WAIT is not counted
        time.sleep(0.1)
    assert not any(state == "LISTEN" for state in sockets_by_inode(port).values())

"""Descriptors into a container: how the Docker sandbox gives the judge's child its control socket,
shared memory and sealed libraries, which bubblewrap's child simply inherits.

A container inherits no descriptors from the `docker run` client. So the parent offers them once
over a unix socket in a fresh directory of its own, which the container gets bound read-only at
HANDOFF_DIR. Inside, before anything of the user's is loaded, this module (run as the container's
command) connects, receives every descriptor in one SCM_RIGHTS message with the number it must
have, puts each at its number and execs the real command, which finds them where it would under
bubblewrap. The parent answers one connection only, from root (the container's) or its own
user, and then closes the socket; a memfd passed this way is the same sealed file, not a copy.

    python3 -P -m agent.sandbox.fd_handoff /run/hipjudge-fds/fds.sock -- COMMAND...
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import struct
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

HANDOFF_DIR = "/run/hipjudge-fds"  # inside the container
SOCKET_NAME = "fds.sock"
MAX_FDS = 64
_NUMBER = struct.Struct("<i")
_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid


class FdHandoff:
    """Offers `fds` (under their numbers) to the first process that connects, once."""

    def __init__(self, fds: Sequence[int]) -> None:
        self.numbers = tuple(fds)
        if not 0 < len(self.numbers) <= MAX_FDS:
            raise ValueError(f"between 1 and {MAX_FDS} descriptors can be handed over")
        # Copies: the caller may close its own once the process is started, as it may with bwrap.
        self._fds = [os.dup(fd) for fd in self.numbers]
        # The process that took the offer, as the kernel names it here (0: none yet, or one this
        # namespace cannot see). It execs the judge's child: the process agent.sandbox.pause stops.
        self.peer_pid = 0
        # Short: a socket's path has at most 107 bytes. The container's root has no capability to
        # bypass permissions, so under an agent that is not root the socket must be open to others;
        # who may take the offer is then checked on the connection itself (_trusted).
        self.directory = Path(tempfile.mkdtemp(prefix="hj-fds-"))
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            self._listener.bind(str(self.directory / SOCKET_NAME))
            self._listener.listen(4)
            os.chmod(self.directory, 0o711)  # noqa: S103 - not listable; the connection's peer is checked
            os.chmod(self.directory / SOCKET_NAME, 0o666)  # noqa: S103 - idem
        except BaseException:
            self.close()
            raise
        self._thread = threading.Thread(target=self._serve, name="fd-handoff", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed: the process ended, or never connected
            with conn:
                peer = _trusted(conn)
                if peer is None:
                    continue  # another user of this machine found the socket: not theirs
                self.peer_pid = peer
                try:
                    socket.send_fds(conn, [b"".join(_NUMBER.pack(n) for n in self.numbers)], self._fds)
                except OSError:
                    pass
            self._close_listener()
            return

    def _close_listener(self) -> None:
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes an accept() waiting in _serve
        except OSError:
            pass
        self._listener.close()

    def close(self) -> None:
        """End the offer and drop the copies; safe to call more than once."""
        self._close_listener()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)
        fds, self._fds = self._fds, []
        for fd in fds:
            os.close(fd)
        shutil.rmtree(self.directory, ignore_errors=True)

    def command(self, python: str) -> list[str]:
        """The prefix that makes a container's command receive the descriptors first."""
        return [python, "-P", "-m", "agent.sandbox.fd_handoff", f"{HANDOFF_DIR}/{SOCKET_NAME}", "--"]


def _trusted(conn: socket.socket) -> int | None:
    """The peer's pid when it runs as root (a container's processes, without a user namespace) or as
    us; None otherwise."""
    pid, uid, _gid = _CREDENTIALS.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CREDENTIALS.size))
    return pid if uid in (0, os.getuid()) else None


def receive(path: str) -> None:
    """Take the descriptors offered at `path` and put each at its number, inheritable."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        data, fds, _, _ = socket.recv_fds(conn, _NUMBER.size * MAX_FDS, MAX_FDS)
    numbers = [n for (n,) in _NUMBER.iter_unpack(data[: len(data) - len(data) % _NUMBER.size])]
    if not fds or len(numbers) != len(fds):
        raise OSError(f"expected {len(numbers)} descriptors, received {len(fds)}")
    # Out of the way first: a received descriptor may sit at a number another one must take.
    above = max(*numbers, *fds) + 1
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, above) for fd in fds]
    for fd in fds:
        os.close(fd)
    for fd, number in zip(moved, numbers, strict=True):
        os.dup2(fd, number)  # inheritable: the exec'd command keeps it
        os.close(fd)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: python -m agent.sandbox.fd_handoff SOCKET -- COMMAND...", file=sys.stderr)
        return 2
    try:
        receive(argv[1])
    except OSError as exc:
        print(f"the judge's descriptors did not arrive: {exc}", file=sys.stderr)
        return 3
    os.execvp(argv[3], argv[3:])  # noqa: S606 - the container's real command, as given by the agent


if __name__ == "__main__":
    sys.exit(main(sys.argv))

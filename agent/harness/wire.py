"""The control channel's wire format (agent.harness.channel) and the child's end of it.

The sandboxed child imports this module and not agent.harness.channel: it starts once per phase of every
job, so it loads only socket and struct here (agent.harness.channel's dataclasses and pathlib, with what
they import, would be paid at each child's start).
"""

from __future__ import annotations

import socket
import struct

MAX_MESSAGE = 8192
MAX_TEXT = 1024  # bytes of an error sentence the child may send

# parent -> child. LOAD comes after the device is up and (on a GPU) the empty calls that calibrate
# the timing are done: until then no code of the user's runs in the child. Before a timed GO the
# parent pauses the child (agent.sandbox.pause) and resumes it with the GO: there is no wake-up message.
LOAD, CASE, GO, FREE, QUIT = b"L", b"C", b"G", b"F", b"Q"
GO_LAYOUT = struct.Struct("<IBB")  # sequence number, flags, library index
GO_EMPTY = 1  # time the handshake (and GPU events) around no call at all: the parent's calibration
# child -> parent.
READY, BUFFERS, DONE, FATAL = b"R", b"B", b"D", b"E"
DONE_LAYOUT = struct.Struct("<IBd")  # sequence number, status (0 ok, 1 error), GPU event time in ms


class ChildGone(Exception):
    """The child closed its end: it exited, crashed or was killed."""


class ChildChannel:
    """The child's end."""

    def __init__(self, fd: int) -> None:
        self.sock = socket.socket(fileno=fd)

    def send(self, kind: bytes, body: bytes = b"", fds: list[int] | None = None) -> None:
        if fds:
            socket.send_fds(self.sock, [kind + body], fds)
        else:
            self.sock.send(kind + body)

    def receive(self) -> bytes:
        data = self.sock.recv(MAX_MESSAGE)
        if not data:
            raise ChildGone("the parent closed the channel")
        return data

    def done(self, seq: int, event_ms: float = 0.0, error: str = "") -> None:
        text = error.encode("utf-8", "replace")[:MAX_TEXT]
        self.send(DONE, DONE_LAYOUT.pack(seq, 1 if error else 0, event_ms) + text)

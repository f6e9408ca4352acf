"""The control channel between the trusted parent and the sandboxed child: one AF_UNIX
SOCK_SEQPACKET socket pair.

SEQPACKET keeps message boundaries, so a message is read whole into a buffer of a fixed size; a
longer one arrives truncated (MSG_TRUNC) and is refused, never buffered. What the child sends is a
one-byte kind and a fixed binary layout (`struct`), never JSON or pickle: nothing it writes can
make the parent recurse, allocate without bound or raise past the parser. File descriptors the
child tries to pass (SCM_RIGHTS) find no room in the ancillary buffer: the kernel closes them. The
one exception is BUFFERS on a real CUDA GPU, which may carry one descriptor per buffer (the buffers
themselves, agent/devices/cuda_vmm.py); more than asked for is refused, and the device checks each.

Times: the parent's socket asks the kernel for SO_TIMESTAMPNS, so every message from the child
carries the moment the child's `send` queued it (the kernel's clock, which user code cannot set).
A call is timed from just before the parent resumes the paused child and sends GO (agent.sandbox.pause)
to the kernel's stamp on the child's DONE, which leaves out how long the parent took to wake up;
the parent's own monotonic clock around the same exchange bounds it from above. An end of call
without a stamp, or stamped before its start, is refused: it was queued before GO (a thread of the
kernel's can write to the channel), and nothing replaces it with the parent's clock.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import socket
import struct
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

# The wire format and the child's end are agent.harness.wire, all that the sandboxed child imports (it
# starts once per phase: no dataclasses, pathlib or re there); the parent's code finds them here too.
from agent.harness.wire import (  # noqa: F401 - re-exported
    BUFFERS,
    CASE,
    DONE,
    DONE_LAYOUT,
    FATAL,
    FREE,
    GO,
    GO_EMPTY,
    GO_LAYOUT,
    LOAD,
    MAX_MESSAGE,
    MAX_TEXT,
    QUIT,
    READY,
    ChildChannel,
    ChildGone,
)

if TYPE_CHECKING:
    from pathlib import Path

_SO_TIMESTAMPNS = 35  # SO_TIMESTAMPNS / SCM_TIMESTAMPNS on x86-64 and arm64 (Python does not name it)
_TIMESPEC = struct.Struct("=qq")


class ProtocolError(Exception):
    """The child sent something the protocol does not allow (user code wrote to the channel, or
    took over the harness); the message says what, for the verdict."""


class ChildFailed(Exception):
    """The child said it cannot go on (FATAL: the solution does not load, the device does not
    open); the message is its sentence, cleaned and capped."""


@dataclass(frozen=True)
class Message:
    kind: bytes
    body: bytes
    sent_ns: int  # CLOCK_REALTIME when the child queued it (kernel stamp), or 0 when none came
    received_mono_ns: int
    fds: tuple[int, ...] = ()  # passed with it, where the receiver allowed any; the receiver closes them


@dataclass(frozen=True)
class Done:
    seq: int
    ok: bool
    event_ms: float
    error: str
    sent_ns: int
    received_mono_ns: int


def pair() -> tuple[socket.socket, socket.socket]:
    """(parent end, child end)."""
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    parent.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
    return parent, child


def clean_text(raw: bytes) -> str:
    """An untrusted sentence: decoded, control characters dropped, capped."""
    text = raw[:MAX_TEXT].decode("utf-8", "replace")
    return "".join(ch if ch.isprintable() else " " for ch in text).strip()


Sender = Callable[[int, bytes, tuple[int, ...]], tuple[int, int]]


def stamped_sender(helper: Path | None) -> Sender | None:
    """The native GO (agent/devices/evict.cpp: hj_resume_send_stamped): the clocks are read, the
    message sent and the paused child resumed with no Python in between. None without the helper
    (no g++)."""
    if helper is None:
        return None
    try:
        native = ctypes.CDLL(str(helper)).hj_resume_send_stamped
    except (OSError, AttributeError):
        return None
    native.restype = ctypes.c_long
    native.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                       ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64)]

    def send(fd: int, message: bytes, resume: tuple[int, ...]) -> tuple[int, int]:
        real, mono = ctypes.c_int64(), ctypes.c_int64()
        pids = (ctypes.c_int * len(resume))(*resume)
        if native(pids, len(resume), fd, message, len(message), ctypes.byref(real), ctypes.byref(mono)) != len(message):
            raise ChildGone("the child closed the channel")
        return real.value, mono.value

    return send


class ParentChannel:
    def __init__(self, sock: socket.socket, sender: Sender | None = None) -> None:
        self.sock = sock
        self._sender = sender

    def send(self, kind: bytes, body: bytes = b"") -> None:
        try:
            self.sock.send(kind + body)
        except OSError as exc:  # the child is gone (EPIPE, ECONNRESET)
            raise ChildGone(str(exc)) from None

    def go(self, seq: int, flags: int = 0, library: int = 0, resume: tuple[int, ...] = ()) -> tuple[int, int]:
        """Send GO and resume the processes `resume` (the paused child); returns (CLOCK_REALTIME,
        CLOCK_MONOTONIC) in ns read just before both: the start of the call."""
        message = GO + GO_LAYOUT.pack(seq & 0xFFFFFFFF, flags, library)
        if self._sender is not None:
            return self._sender(self.sock.fileno(), message, resume)
        started = time.time_ns(), time.monotonic_ns()
        try:
            self.send(message[:1], message[1:])
        finally:
            for pid in resume:  # GO is queued first: the child's waiting thread wakes once
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
        return started

    def pending(self) -> bool:
        """Whether a message of the child's waits unread (it sent one nobody asked for). A closed
        channel is not one: the next receive reports that the child is gone."""
        poller = select.poll()
        poller.register(self.sock.fileno(), select.POLLIN)
        if not any(events & select.POLLIN for _, events in poller.poll(0)):
            return False
        try:
            return bool(self.sock.recv(1, socket.MSG_PEEK))  # readable: returns at once; b"" at the end
        except OSError:
            return False

    def receive(self, alive: object = None, poll_s: float = 0.25, max_fds: int = 0) -> Message:
        """The next message. Blocks, waking every poll_s to ask `alive()` (the watchdog) whether
        the child still runs; raises ChildGone at EOF or when it does not, ProtocolError for a
        message that breaks the size or ancillary-data rules (more than `max_fds` descriptors)."""
        self.sock.settimeout(poll_s)
        room = socket.CMSG_SPACE(_TIMESPEC.size) + (socket.CMSG_SPACE(4 * max_fds) if max_fds else 0)
        while True:
            try:
                data, ancdata, flags, _ = self.sock.recvmsg(MAX_MESSAGE, room, socket.MSG_CMSG_CLOEXEC)
            except TimeoutError:
                if callable(alive) and not alive():
                    raise ChildGone("the child was stopped") from None
                continue
            except OSError as exc:
                raise ChildGone(str(exc)) from None
            received = time.monotonic_ns()
            sent, fds = 0, []
            for level, kind, payload in ancdata:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds += _passed_fds(payload)
                elif level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(payload) == _TIMESPEC.size:
                    seconds, nanos = _TIMESPEC.unpack(payload)
                    sent = seconds * 1_000_000_000 + nanos
            problem: Exception | None = None
            if not data:
                problem = ChildGone("the child closed the channel")
            elif flags & socket.MSG_TRUNC:
                problem = ProtocolError(f"a message longer than {MAX_MESSAGE} bytes")
            elif flags & socket.MSG_CTRUNC or len(fds) > max_fds:
                problem = ProtocolError("a message carrying file descriptors" if not max_fds
                                        else f"a message carrying more than {max_fds} file descriptors")
            if problem is not None:
                close_fds(fds)
                raise problem
            return Message(data[:1], data[1:], sent, received, tuple(fds))

    def expect(self, kind: bytes, alive: object = None, max_fds: int = 0) -> Message:
        message = self.receive(alive, max_fds=max_fds)
        if message.kind != kind:
            close_fds(message.fds)
        if message.kind == FATAL:
            raise ChildFailed(clean_text(message.body) or "the harness in the sandbox failed")
        if message.kind != kind:
            raise ProtocolError(f"a {message.kind!r} message where {kind!r} was due")
        return message

    def done(self, seq: int, alive: object = None, started: tuple[int, int] | None = None) -> Done:
        """The end of call `seq`; with `started` (what go() returned), an end not stamped by the
        kernel after that moment is refused: it was queued before GO."""
        message = self.expect(DONE, alive)
        if len(message.body) < DONE_LAYOUT.size or len(message.body) > DONE_LAYOUT.size + MAX_TEXT:
            raise ProtocolError("a malformed end-of-call message")
        got, status, event_ms = DONE_LAYOUT.unpack_from(message.body)
        if got != seq & 0xFFFFFFFF:
            raise ProtocolError(f"the end of call {got} while call {seq} was running")
        if status not in (0, 1) or not 0.0 <= event_ms < 1e9:  # NaN fails the comparison too
            raise ProtocolError("a malformed end-of-call message")
        if started is not None and message.sent_ns < started[0]:
            raise ProtocolError("an end of call sent before the call started")
        return Done(seq, status == 0, event_ms, clean_text(message.body[DONE_LAYOUT.size:]), message.sent_ns,
                    message.received_mono_ns)

    def close(self) -> None:
        self.sock.close()


def call_elapsed_ns(started: tuple[int, int], done: Done) -> int:
    """How long a call took by the kernel's stamp on DONE (ParentChannel.done refused one stamped
    before the start), never more than the parent's own monotonic clock saw: a wall-clock step in
    between falls back to that upper bound."""
    real_start, mono_start = started
    upper = done.received_mono_ns - mono_start
    stamped = done.sent_ns - real_start
    return stamped if 0 <= stamped <= upper else upper


def _passed_fds(payload: bytes) -> list[int]:
    usable = len(payload) - len(payload) % 4
    return [fd for (fd,) in struct.iter_unpack("i", payload[:usable])]


def close_fds(fds: Iterable[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass

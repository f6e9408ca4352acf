"""What a sandboxed program writes to stdout and stderr: a pipe the trusted parent drains.

A host file would be the child's to hold: `fallocate(FALLOC_FL_KEEP_SIZE)` takes disk past
RLIMIT_FSIZE while the file stays small, and the same descriptor allows fchmod, ftruncate and a
read back through /proc/self/fd. A pipe has no disk behind it and none of those operations. The
parent keeps the last `keep` bytes (what a verdict may quote) and counts the rest; at `cap`
bytes in all it closes its end, so that further writes fail (EPIPE, or SIGPIPE for a program that
did not ignore it) instead of costing the parent a read each.
"""

from __future__ import annotations

import os
import threading

_CHUNK = 1 << 16


class OutputDrain:
    def __init__(self, read_fd: int, *, keep: int, cap: int) -> None:
        self._fd = read_fd
        self.keep, self.cap = keep, cap
        self.total = 0
        self.overflowed = False  # `cap` bytes were written: the pipe was closed on the rest
        self._tail = bytearray()
        self._thread = threading.Thread(target=self._drain, name="output-drain", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        try:
            while True:
                try:
                    data = os.read(self._fd, _CHUNK)
                except InterruptedError:
                    continue
                if not data:
                    return
                self.total += len(data)
                self._tail += data
                if len(self._tail) > 2 * self.keep:  # trimmed now and then, not at every read
                    del self._tail[:-self.keep]
                if self.total >= self.cap:
                    self.overflowed = True
                    return
        except OSError:
            return
        finally:
            os.close(self._fd)

    def finish(self, timeout_s: float = 5.0) -> None:
        """Wait for the end of the output (every writer gone: the caller killed the program)."""
        self._thread.join(timeout_s)

    def text(self) -> str:
        """The tail, decoded, with a note of what was cut before it."""
        data = bytes(self._tail[-self.keep:]) if self.keep else b""
        text = data.decode("utf-8", "replace")
        cut = self.total - len(data)
        if cut > 0:
            text = f"[… {cut} earlier bytes of output cut]\n" + text
        return text

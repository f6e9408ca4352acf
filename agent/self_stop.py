"""An agent that hears from no platform for a while stops itself (`serve --stop-after-silence S`).

Nothing outlives its master: the platform polls a running job every few seconds and reaches every
warm agent at least every few minutes (its reconcile asks for /v1/health), so an agent that has had
no request with its token for S seconds (the platform passes twice its pool's idle timeout, at least
five minutes) has lost its platform, whose reaper would have stopped it: its workers are stopped or
gone. Left running, it would idle on a paid VM indefinitely. It says so in its log and stops; the
job it may run is cancelled, as on SIGTERM. A dstack run ends with it, and the platform's reconcile
finds the VM gone when it comes back.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

CHECKS_PER_LIMIT = 10  # how finely the watch looks: the stop comes at most a tenth of the limit late
MAX_CHECK_INTERVAL_S = 5.0


class SilenceWatch:
    def __init__(self, limit_s: float, stop: Callable[[], None], *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if limit_s <= 0:
            raise ValueError("the silence limit must be above 0")
        self.limit_s, self._stop, self._clock = limit_s, stop, clock
        self.last_heard = clock()
        self.fired = False
        self._active = 0  # requests with the token being answered (a long poll is the platform there)
        self._lock = threading.Lock()
        self._done = threading.Event()

    def enter(self) -> None:
        """A request with the agent's token came in: the platform is there."""
        with self._lock:
            self._active += 1
            self.last_heard = self._clock()

    def leave(self) -> None:
        with self._lock:
            self._active -= 1
            self.last_heard = self._clock()

    def silent_for(self) -> float:
        with self._lock:
            return 0.0 if self._active else self._clock() - self.last_heard

    def check(self) -> bool:
        """Stop the agent if it has been silent for the limit; True when it did."""
        silent = self.silent_for()
        if self.fired or silent < self.limit_s:
            return self.fired
        self.fired = True
        print(f"agent: no request from the platform for {silent:.0f} s (limit {self.limit_s:g} s, "
              "--stop-after-silence): stopping itself", file=sys.stderr, flush=True)
        self._stop()
        return True

    def start(self) -> SilenceWatch:
        interval = min(self.limit_s / CHECKS_PER_LIMIT, MAX_CHECK_INTERVAL_S)

        def watch() -> None:
            while not self._done.wait(interval):
                if self.check():
                    return

        threading.Thread(target=watch, name="silence-watch", daemon=True).start()
        return self

    def close(self) -> None:
        self._done.set()

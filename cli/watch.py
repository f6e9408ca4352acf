"""Following a submission from its event stream until its result.

Plain (piped, or `--wait`): one line per event, as a log; while it waits for a VM a timer says so,
in place on a terminal, as a line every PLAIN_EVERY_S seconds when piped. `--watch` on a terminal:
one block redrawn in place (status with its timer, compile, a mark per test case, the benchmark and
ranked cases so far), drawn a last time and left alone once the result comes, which is printed
under it (the last thing on screen). Piped, `--watch` is the plain log.

The server ends a stream once the submission is final and every event was sent, so a stream that
ends right after a RESULT is the end; one that ends otherwise (a server restart) is resumed from the
last event seen, after asking for the submission's state. Following stops at the command's
deadline (--deadline) with exit 3, whatever the stream sends meanwhile.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

from cli import shapes
from cli.api import ApiError, BadResponse, ConnectionFailed, DeadlinePassed
from cli.codes import EXIT_PENDING, exit_code_for
from cli.output import Printer, clean, ms, tests_said
from cli.protocol import BENCHMARK_RESULT, COMPILE_RESULT, RANKED_RESULT, RESULT, STATUS, TEST_RESULT

WATCH_RECONNECTS = 20
TICK_S = 0.25
PLAIN_EVERY_S = 10.0
WAITING = {"IN_QUEUE": "waiting in the queue", "PROVISIONING": "starting a VM"}
CLEAR_LINE, UP = "\x1b[2K", "\x1b[{}A"


class View:
    """What the watcher has seen, and how it shows it. Called from the reading thread (events) and
    the ticker thread (timer), one at a time."""

    def __init__(self, out: Printer, *, live: bool, tty: bool, stream: TextIO | None = None) -> None:
        self.out, self.live, self.tty = out, live and tty and not out.json_mode, tty and not out.json_mode
        self.stream = stream or sys.stdout
        self.lock = threading.Lock()
        self.status, self.since = "", time.monotonic()
        self.vm = ""
        self.compile: dict[str, Any] | None = None
        self.tests: list[dict[str, Any]] = []
        self.tests_total = 0
        self.cases: dict[str, list[dict[str, Any]]] = {BENCHMARK_RESULT: [], RANKED_RESULT: []}
        self.drawn = 0  # lines of the live block on screen
        self.frozen = False  # the live block is left as it is: what follows is printed under it
        self.timer_shown = False  # the plain view's in-place timer line is on screen
        self.last_plain_tick = time.monotonic()

    # ---- what happened ---------------------------------------------------------------------------
    def event(self, event: dict[str, Any]) -> None:
        with self.lock:
            self._learn(event)
            if self.live and event["type"] != RESULT:
                self.frozen = False  # (after a RESULT, a rejudge's events start a new block under it)
                self._draw()
            else:
                self._settle()
                self.out.event(event)
                self.last_plain_tick = time.monotonic()

    def note(self, text: str) -> None:
        """A line said while following (a reconnection): under the live block, which starts anew below it."""
        with self.lock:
            self._settle()
            self.out.line(text)
            self.frozen = False

    def settle(self) -> None:
        """Before the final lines: the live block drawn one last time and then left alone, so that
        the verdict printed under it stays the last thing on screen."""
        with self.lock:
            self._settle()

    def _settle(self) -> None:
        self._clear_timer()
        if self.live and not self.frozen:
            self._draw()
            self.frozen, self.drawn = True, 0

    def _learn(self, event: dict[str, Any]) -> None:
        kind, payload = event["type"], event.get("payload") or {}
        if kind == STATUS and payload.get("status") != self.status:
            self.status, self.since = str(payload.get("status")), time.monotonic()
            if self.status == "IN_QUEUE":  # queued again: a new attempt starts from nothing
                self.compile, self.tests, self.tests_total = None, [], 0
                self.cases = {k: [] for k in self.cases}
        elif kind == "VM":
            self.vm = f"{payload.get('vm_start', '')} on pool {payload.get('pool', '')}".lower().replace("_", " ")
        elif kind == COMPILE_RESULT:
            self.compile = payload
        elif kind == TEST_RESULT:
            self.tests.append(payload)
            self.tests_total = max(self.tests_total, int(payload.get("total") or 0))
        elif kind in self.cases:
            self.cases[kind].append(payload)

    # ---- the clock -------------------------------------------------------------------------------
    def tick(self) -> None:
        with self.lock:
            if self.live:
                if not self.frozen:
                    self._draw()
            elif self.status in WAITING:
                waited = time.monotonic() - self.since
                if self.tty:
                    self.stream.write(f"\r{CLEAR_LINE}  … {WAITING[self.status]}: {waited:.0f} s")
                    self.stream.flush()
                    self.timer_shown = True
                elif time.monotonic() - self.last_plain_tick >= PLAIN_EVERY_S:
                    self.out.line(f"  … still {WAITING[self.status]}: {waited:.0f} s")
                    self.last_plain_tick = time.monotonic()

    def close(self) -> None:
        self.settle()

    def _clear_timer(self) -> None:
        if self.timer_shown:
            self.stream.write(f"\r{CLEAR_LINE}")
            self.stream.flush()
            self.timer_shown = False

    # ---- the live block --------------------------------------------------------------------------
    def lines(self) -> list[str]:
        elapsed = time.monotonic() - self.since
        head = f"{self.status or 'connecting'}  {elapsed:5.1f} s" + (f"  ({self.vm})" if self.vm else "")
        lines = [head]
        if self.compile is not None:
            lines.append(f"  compile  {'ok' if self.compile.get('ok') else 'FAILED'}"
                         + (" (cached)" if self.compile.get("cached") else ""))
        if self.tests or self.tests_total:
            marks = "".join("✓" if t.get("passed") else "✗" for t in self.tests)
            marks += "·" * max(0, self.tests_total - len(self.tests))
            lines.append(f"  tests    {marks}  {tests_said(self.tests, self.tests_total or len(self.tests))}")
        for kind, label in ((BENCHMARK_RESULT, "bench"), (RANKED_RESULT, "ranked")):
            done = self.cases[kind]
            if done:
                total = max(int(c.get("total") or 0) for c in done)
                last = done[-1]
                lines.append(f"  {label:<8} {len(done)} of {total} cases; {last.get('case')}: mean "
                             f"{ms(last.get('mean_ms'))} ms over {last.get('runs')} runs")
        return [clean(line) for line in lines]

    def _draw(self) -> None:
        lines = self.lines()
        text = UP.format(self.drawn) if self.drawn else ""
        text += "".join(f"\r{CLEAR_LINE}{line}\n" for line in lines)
        for _ in range(self.drawn - len(lines)):  # a shorter block: blank what is left of the old one
            text += f"{CLEAR_LINE}\n"
        self.stream.write(text)
        self.stream.flush()
        self.drawn = max(self.drawn, len(lines))


class Ticker(threading.Thread):
    def __init__(self, view: View) -> None:
        super().__init__(daemon=True, name="hipjudge-timer")
        self.view, self.stopped = view, threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(TICK_S):
            self.view.tick()


def follow(client: Any, out: Printer, submission_id: str, mode: str, *, live: bool = False) -> int:
    """Follow the submission until its result; returns the exit code for its final status."""
    tty = sys.stdout.isatty()
    view = View(out, live=live, tty=tty)
    ticker = Ticker(view)
    ticker.start()
    try:
        return _follow(client, out, view, submission_id, mode)
    finally:
        ticker.stopped.set()
        view.close()


def finished_detail(client: Any, submission_id: str) -> dict[str, Any] | None:
    """The submission's detail once its RESULT came, or None when it cannot be had: the result itself
    is already printed, so the rest is best effort."""
    try:
        detail = shapes.ask(client, shapes.SUBMISSION, "GET", f"/submissions/{submission_id}")
    except (ApiError, BadResponse, ConnectionFailed):
        return None
    return detail if isinstance(detail, dict) else None


def said_light(out: Printer, detail: dict[str, Any] | None) -> None:
    """The scores against the speed of light of the pool's device, and for a leaderboard submission
    where it stands with the one ranked number (the leaderboard's): the platform computes them, the
    RESULT event does not carry them."""
    if out.json_mode or detail is None:
        return
    if detail.get("mode") == "leaderboard":
        out.standing(detail)
        detail = {**detail, "ranked": None}  # its speed of light is in the standing
    out.light(detail)


# How often to look whether a record's confirmation started, while it waits for a VM to be given back.
CONFIRMATION_POLL_S = 2.0


def _follow(client: Any, out: Printer, view: View, submission_id: str, mode: str) -> int:
    try:
        return _until_result(client, out, view, submission_id, mode)
    except DeadlinePassed as exc:
        view.settle()
        out.error(f"no result yet: {exc}; the submission goes on: hipjudge status {submission_id} --wait")
        return EXIT_PENDING


def _pause(client: Any, seconds: float) -> None:
    """A pause before trying again, cut at the command's deadline (the next request then says so)."""
    time.sleep(max(0.0, min(seconds, client.remaining())))


def _until_result(client: Any, out: Printer, view: View, submission_id: str, mode: str) -> int:
    after, reconnects, final, confirming = 0, 0, None, False
    while True:
        try:
            for event in client.events(submission_id, after=after):
                after = event["seq"]
                view.event(event)
                # Only the last RESULT ends it: a rejudge follows an earlier one in the same stream.
                final = str((event.get("payload") or {}).get("status") or "") if event["type"] == RESULT else None
        except DeadlinePassed:
            raise
        except ConnectionFailed as exc:
            reconnects += 1
            if reconnects > WATCH_RECONNECTS:
                raise
            view.note(f"  ({exc}; reconnecting)")
            _pause(client, min(2.0 * reconnects, 10.0))
            continue
        if final is not None:
            detail = finished_detail(client, submission_id) if final == "ACCEPTED" else None
            if mode == "leaderboard" and detail is not None and detail.get("ranked_pending") is True:
                # A record ranks only once a second judging confirms it: wait for that, on the same stream.
                if not confirming:
                    view.note("a record: waiting for a second judging on a new secret seed to confirm it before "
                              "it ranks (Ctrl-C stops waiting; the confirmation goes on)")
                confirming = True
                _pause(client, CONFIRMATION_POLL_S)
                continue
            said_light(out, detail)
            return exit_code_for(final, mode)
        # The stream ended without a RESULT (a server restart): ask for the state, then resume.
        detail = shapes.ask(client, shapes.SUBMISSION, "GET", f"/submissions/{submission_id}")
        if detail["is_terminal"]:
            view.settle()
            out.result(detail)
            return exit_code_for(detail["status"], detail["mode"])
        reconnects += 1
        if reconnects > WATCH_RECONNECTS:
            view.settle()
            out.error("the event stream keeps ending early; try `hipjudge status --wait` later")
            return EXIT_PENDING
        _pause(client, 1.0)

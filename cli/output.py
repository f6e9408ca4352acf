"""How the CLI prints: readable progress lines, tables, or raw JSON with --json."""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from collections.abc import Collection, Sequence
from typing import Any

from cli.protocol import BENCHMARK_RESULT, COMPILE_RESULT, RANKED_RESULT, RESULT, STATUS, TEST_RESULT

# Escape sequences (CSI, OSC and other ESC-introduced ones) and then any control character left:
# a status_reason or compiler output must not move the cursor, retitle the window, rewrite what is
# already on screen or make the terminal answer back. JSON output escapes them already.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clearing the screen
    r"|(?:\x1b[\]P^_X]|[\x9d\x90\x9e\x9f\x98])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, ...: titles
    r"|\x1b.?",  # any other escape
    re.DOTALL)


def clean(text: str) -> str:
    """Server text made safe to print on a terminal: escape sequences and control characters gone
    (newlines and tabs stay), other characters untouched."""
    text = _ESCAPE_SEQUENCE.sub("", text)
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) != "Cc")


def ms(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, int | float) else "-"


def tests_said(tests: list[dict[str, Any]], total: int) -> str:
    """The tests so far in words that cannot be misread (as the web page says them)."""
    passed = sum(1 for t in tests if t.get("passed"))
    failed = next((t for t in tests if not t.get("passed")), None)
    if failed is None:
        return f"{passed} of {total} passed"
    return f"test {int(failed.get('index') or 0) + 1} of {total} failed" + (f", {passed} passed" if passed else "")


PHASE_WORDS = {"provisioning": "cold start", "busy": "busy", "idle": "idle after", "draining": "draining"}


def cost(d: dict[str, Any]) -> str:
    """A submission's cost_usd with its parts: `$0.0123 (cold start $0.0020, busy $0.0103)`."""
    total = d.get("cost_usd")
    if total is None:
        return "-"
    parts = d.get("cost_parts") or {}
    said = f"${float(total):.4f}"
    if len(parts) > 1:
        said += " (" + ", ".join(f"{PHASE_WORDS.get(k, k)} ${float(v):.4f}" for k, v in parts.items()) + ")"
    return said


def since(timestamp: Any) -> str:
    """How long ago an ISO 8601 time was, in seconds ("12 s"); "" when it cannot be read."""
    from datetime import datetime  # only `status` of an unfinished submission needs it

    try:
        then = datetime.fromisoformat(str(timestamp).replace("Z", "+00:00"))
    except ValueError:
        return ""
    return f"{max(0.0, (datetime.now(then.tzinfo) - then).total_seconds()):.0f} s"


def best(bests: Any) -> str:
    """A problem's `your_best` (per pool): `3.4280 ranked (local)`, the pools joined by `; `."""
    if not isinstance(bests, list) or not bests:
        return "-"
    return "; ".join(f"{ms(b.get('score_ms'))} {b.get('kind')} ({b.get('pool')})" for b in bests if isinstance(b, dict))


def interval(value: Any) -> str:
    """A 95 % interval [low, high] in ms as `low..high`."""
    if isinstance(value, list) and len(value) == 2:
        return f"{ms(value[0])}..{ms(value[1])}"
    return "-"


def times(value: Any) -> str:
    return f"{value:.2f}x" if isinstance(value, int | float) else "-"


def speedup(ranked: dict[str, Any]) -> str:
    """A ranked result's speedup with its interval and word: `0.89x (95% 0.85..0.93x), within noise`."""
    said = times(ranked.get("speedup"))
    low_high = ranked.get("speedup_ci95")
    if isinstance(low_high, list) and len(low_high) == 2 and all(isinstance(v, int | float) for v in low_high):
        said += f" (95% {low_high[0]:.2f}..{low_high[1]:.2f}x)"
    if ranked.get("speedup_note"):
        said += f", {ranked['speedup_note']}"
    return said


def percent(light: Any) -> str:
    """A speed_of_light's percentage: `35.6%`; `-` when there is none."""
    value = light.get("percent") if isinstance(light, dict) else None
    if not isinstance(value, int | float):
        return "-"
    return f"{value:.1f}%" if value >= 1 else f"{value:.2g}%"


def light(value: Any) -> str:
    """A speed_of_light in words: `35.6% of speed of light (floor 0.2517 ms, memory-bound)`; "" when none."""
    if not isinstance(value, dict) or not isinstance(value.get("floor_ms"), int | float):
        return ""
    bound = {"compute": f"compute-bound, {value.get('peak_type')}", "memory": "memory-bound"}.get(
        str(value.get("bound")), f"{value.get('bound')}, {value.get('peak_type')}")
    return f"{percent(value)} of speed of light (floor {ms(value['floor_ms'])} ms, {bound})"


def best_light(lights: Any) -> str:
    """A problem's `best_speed_of_light` (per pool): `35.6% (local)`, the pools joined by `; `."""
    if not isinstance(lights, list) or not lights:
        return "-"
    return "; ".join(f"{percent(b)} ({b.get('pool')})" for b in lights if isinstance(b, dict))


ERROR_CHARS = 400
TERMINAL_WIDTH = 100  # a terminal that does not say its width
SQUEEZED = 16  # columns are left out while the others cannot fit with squeezed ones this narrow
NARROWEST = 5  # a squeezed column keeps at least this many characters


def screen_width() -> int | None:
    """The terminal's width ($COLUMNS, else what the terminal says, else TERMINAL_WIDTH); None when
    the output is not a terminal: piped, a table keeps every cell whole (for grep and scripts)."""
    if not sys.stdout.isatty():
        return None
    said = os.environ.get("COLUMNS", "")
    if said.isdigit() and 0 < int(said) < 10_000:
        return int(said)
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return TERMINAL_WIDTH


def fitted(full: list[int], squeezable: set[int], droppable: list[int], room: int) -> dict[int, int]:
    """The columns shown and their widths, to fit `room` with two spaces between columns: the
    droppable ones are left out, in turn, while the rest cannot fit with the squeezable ones
    SQUEEZED wide; then the widest squeezable column loses a character until they fit (or none is
    wider than NARROWEST)."""
    widths = dict(enumerate(full))

    def least(shown: dict[int, int]) -> int:
        return sum(min(w, SQUEEZED) if i in squeezable else w for i, w in shown.items()) + 2 * (len(shown) - 1)

    for column in droppable:
        if least(widths) <= room:
            break
        del widths[column]
    over = sum(widths.values()) + 2 * (len(widths) - 1) - room
    shown = [i for i in widths if i in squeezable]
    while over > 0 and shown:
        widest = max(shown, key=lambda i: widths[i])
        if widths[widest] <= NARROWEST:
            break
        widths[widest] -= 1
        over -= 1
    return widths


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


class Printer:
    def __init__(self, json_mode: bool = False) -> None:
        self.json_mode = json_mode
        self._status: str | None = None

    def line(self, text: str) -> None:
        if not self.json_mode:
            print(clean(text), flush=True)

    def error(self, text: str) -> None:
        """One line on stderr, however long or many-lined the server's message was."""
        said = " ".join(clean(text).split())
        if len(said) > ERROR_CHARS:
            said = said[:ERROR_CHARS - 1] + "…"
        print(f"hipjudge: error: {said}", file=sys.stderr, flush=True)

    def table(self, headers: list[str], rows: list[list[Any]], squeeze: Collection[str] = (),
              drop: Sequence[str] = ()) -> None:
        """Columns two spaces apart, fitted to a terminal's width: those named in `drop` are left out
        (in that order) while the rest cannot fit, then those named in `squeeze` are cut (with …)."""
        if self.json_mode:
            print(json.dumps([dict(zip(headers, row, strict=True)) for row in rows]))
            return
        cells = [headers] + [[clean(str(c)) for c in row] for row in rows]
        full = [max(len(r[i]) for r in cells) for i in range(len(headers))]
        room = screen_width()
        widths = dict(enumerate(full)) if room is None else fitted(
            full, {headers.index(name) for name in squeeze}, [headers.index(name) for name in drop], room)
        for row in cells:
            print("  ".join(cut(row[i], w).ljust(w) for i, w in widths.items()).rstrip())

    def event(self, event: dict[str, Any]) -> None:
        if self.json_mode:
            print(json.dumps(event), flush=True)
            return
        kind, p = event["type"], event.get("payload") or {}
        text = None
        if kind == STATUS:
            if p.get("status") != self._status:  # the platform and the agent may both announce one
                text = f"· {p.get('status')}"
            self._status = p.get("status")
        elif kind == "VM":
            text = f"  VM {str(p.get('vm', ''))[:8]} ({p.get('vm_start')}) on pool {p.get('pool')}"
        elif kind == COMPILE_RESULT:
            text = f"  compile {'ok' if p.get('ok') else 'FAILED'} in {p.get('seconds') or 0:.2f} s" + (
                " (cached)" if p.get("cached") else "")
            if p.get("output") and (not p.get("ok") or p.get("report")):  # a compile report's summary is its output
                text += "\n" + "\n".join(f"    {line}" for line in str(p["output"]).splitlines()[:40])
        elif kind == TEST_RESULT:
            passed = bool(p.get("passed"))
            text = (f"  {'✓' if passed else '✗'} test {int(p.get('index') or 0) + 1} of {p.get('total')} "
                    f"{'passed' if passed else 'FAILED'}: {p.get('case')}")
            if p.get("message"):
                text += f": {p['message']}"
        elif kind == BENCHMARK_RESULT:
            text = (f"  bench {int(p.get('index') or 0) + 1}/{p.get('total')} {p.get('case')}: {p.get('runs')} runs, "
                    f"mean {ms(p.get('mean_ms'))} ms, {p.get('gflops') or 0:.2f} GFLOPS")
        elif kind == RANKED_RESULT:
            text = (f"  ranked {int(p.get('index') or 0) + 1}/{p.get('total')} {p.get('case')}: {p.get('runs')} runs, "
                    f"mean {ms(p.get('mean_ms'))} ms, 95% {interval(p.get('ci95_ms'))} ms, "
                    f"speedup {times(p.get('speedup'))}")
        elif kind == "REQUEUED":
            text = f"  re-queued: {p.get('reason')}"
        elif kind == "RECORD_CONFIRMATION":
            text = f"record confirmation: judging #{p.get('judging')} on a new secret seed"
        elif kind == "REJUDGE":
            text = f"rejudge #{p.get('judging')}: {p.get('reason')}"
        elif kind == RESULT:
            text = f"{p.get('status')}: {p.get('reason', '')}"
            ranked = (p.get("summary") or {}).get("ranked")
            if p.get("score_ms") is not None:
                # A leaderboard run's public benchmark never ranks; its ranked score is the platform's to
                # settle (a record is judged twice) and is printed with its standing, not from this event.
                text += (f"\npublic benchmark score: {ms(p['score_ms'])} ms (does not rank)" if ranked is not None
                         else f"\nscore: {ms(p['score_ms'])} ms")
        if text:
            print(clean(text), flush=True)

    def result(self, detail: dict[str, Any]) -> None:
        self.line(f"{detail['status']}: {detail['status_reason']}")

    def detail(self, d: dict[str, Any]) -> None:
        if self.json_mode:
            print(json.dumps(d, indent=2))
            return
        emulated = "  emulated (CPU)" if d.get("emulated") else ""
        self.line(f"{d['id']}  {d['problem']}  {d['language']}  {d['mode']}{emulated}  pool {d['pool']}")
        where = f" (position {d['queue_position']} in the queue)" if d.get("queue_position") else ""
        if d["status"] == "PROVISIONING" and d.get("dispatched_at"):
            where = f" (starting a VM for {since(d['dispatched_at'])})"
        elif d["status"] == "IN_QUEUE" and d.get("queued_at"):
            where += f" (queued {since(d['queued_at'])} ago)"
        self.line(f"status: {d['status']}{where}")
        if d.get("status_reason"):
            self.line(f"reason: {d['status_reason']}")
        if d.get("vm_start"):
            self.line(f"vm: {d['vm_start']}")
        results = d.get("results") or {}
        self.compile_report(d.get("compile_report"))
        for t in results.get("tests") or []:
            self.line(f"  {'✓ passed' if t.get('passed') else '✗ FAILED'} {t.get('case')}"
                      + (f": {t['message']}" if t.get("message") else ""))
        for b in results.get("benchmarks") or []:
            self.line(f"  bench {b.get('case')}: mean {ms(b.get('mean_ms'))} ms over {b.get('runs')} runs"
                      + (f", {light(b.get('speed_of_light'))}" if b.get("speed_of_light") else ""))
        for c in results.get("ranked") or []:
            self.line(f"  ranked {c.get('case')}: mean {ms(c.get('mean_ms'))} ms over {c.get('runs')} runs"
                      + (f", {light(c.get('speed_of_light'))}" if c.get("speed_of_light") else ""))
        if d.get("score_ms") is not None:
            label = "public benchmark score" if d.get("mode") == "leaderboard" else "score"
            self.line(f"{label}: {ms(d['score_ms'])} ms" + (f", {light(d['speed_of_light'])}"
                                                          if d.get("speed_of_light") else "")
                      + (" (does not rank)" if d.get("mode") == "leaderboard" else ""))
        if d.get("cost_usd") is not None:
            self.line(f"cost: {cost(d)}" + ("" if d.get("is_terminal") else " so far"))
        if d.get("mode") == "leaderboard":
            self.standing(d)

    def compile_report(self, report: dict[str, Any] | None) -> None:
        """What the compiled kernels use of each GPU (a triton submission's compile report)."""
        for target in (report or {}).get("targets", []):
            if target.get("launcher_error"):
                self.line(f"  {target.get('target')}: {target['launcher_error']}")
            for k in target.get("kernels", []):
                if target.get("backend") == "hip":
                    self.line(f"  {target.get('target')} {k.get('name')}: {k.get('vgprs')} VGPRs, {k.get('agprs')} "
                              f"AGPRs, {k.get('sgprs')} SGPRs, {k.get('spills')} spills, LDS {k.get('lds_bytes')} B, "
                              f"occupancy {k.get('occupancy_waves_per_simd')} waves/SIMD, "
                              f"{k.get('mfma_instructions')} MFMA")
                else:
                    self.line(f"  {target.get('target')} {k.get('name')}: {k.get('registers', '?')} registers, "
                              f"shared {k.get('shared_bytes')} B, {k.get('mma_instructions')} tensor-core "
                              "instructions")

    def standing(self, d: dict[str, Any]) -> None:
        """Where a submission stands on its leaderboard (the detail's `leaderboard` and `ranked`)."""
        if self.json_mode:
            print(json.dumps({"id": d["id"], "rank": d.get("rank"), "leaderboard": d.get("leaderboard"),
                              "ranked": d.get("ranked")}, indent=2))
            return
        standing, ranked = d.get("leaderboard") or {}, d.get("ranked")
        if standing.get("state") == "confirming" and not ranked:
            self.line(f"not ranked yet (confirming): {standing.get('reason', '')}".rstrip(": "))
        elif standing.get("state") == "ranked":
            self.line(f"rank {standing.get('rank')} on {d['problem']}, pool {d['pool']}")
        else:
            self.line(f"not on the leaderboard ({str(standing.get('state', '')).replace('_', ' ')}): "
                      f"{standing.get('reason', '')}".rstrip(": "))
        if ranked:
            self.line(f"ranked score: {ms(ranked['score_ms'])} ms (95% {interval(ranked.get('ci95_ms'))}), "
                      f"speedup {speedup(ranked)}")
            if ranked.get("speed_of_light"):
                self.line(f"ranked score: {light(ranked['speed_of_light'])}")

    def light(self, d: dict[str, Any]) -> None:
        """A finished submission's scores against the speed of light (after a followed RESULT)."""
        ranked = d.get("ranked") or {}
        for label, value in (("score", d.get("speed_of_light")), ("ranked score", ranked.get("speed_of_light"))):
            if value:
                self.line(f"{label}: {light(value)}")

"""How the CLI prints: readable progress lines, tables, or raw JSON with --json."""

from __future__ import annotations

import json
import sys
from typing import Any


def _ms(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, int | float) else "-"


class Printer:
    def __init__(self, json_mode: bool = False) -> None:
        self.json_mode = json_mode
        self._status: str | None = None

    def line(self, text: str) -> None:
        if not self.json_mode:
            print(text, flush=True)

    def error(self, text: str) -> None:
        print(f"hipjudge: {text}", file=sys.stderr, flush=True)

    def table(self, headers: list[str], rows: list[list[Any]]) -> None:
        if self.json_mode:
            print(json.dumps([dict(zip(headers, row, strict=True)) for row in rows]))
            return
        cells = [headers] + [[str(c) for c in row] for row in rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
        for row in cells:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())

    def event(self, event: dict[str, Any]) -> None:
        if self.json_mode:
            print(json.dumps(event), flush=True)
            return
        kind, p = event["type"], event.get("payload") or {}
        text = None
        if kind == "STATUS":
            if p.get("status") != self._status:  # the platform and the agent may both announce one
                text = f"· {p.get('status')}"
            self._status = p.get("status")
        elif kind == "VM":
            text = f"  VM {str(p.get('vm', ''))[:8]} ({p.get('vm_start')}) on pool {p.get('pool')}"
        elif kind == "COMPILE_RESULT":
            text = f"  compile {'ok' if p.get('ok') else 'FAILED'} in {p.get('seconds', 0):.2f} s" + (
                " (cached)" if p.get("cached") else "")
            if p.get("output") and not p.get("ok"):
                text += "\n" + "\n".join(f"    {line}" for line in str(p["output"]).splitlines()[:40])
        elif kind == "TEST_RESULT":
            mark = "✓" if p.get("passed") else "✗"
            text = f"  {mark} test {int(p.get('index', 0)) + 1}/{p.get('total')} {p.get('case')}"
            if p.get("message"):
                text += f": {p['message']}"
        elif kind == "BENCHMARK_RESULT":
            text = (f"  bench {int(p.get('index', 0)) + 1}/{p.get('total')} {p.get('case')}: {p.get('runs')} runs, "
                    f"mean {_ms(p.get('mean_ms'))} ms, {p.get('gflops') or 0:.2f} GFLOPS")
        elif kind == "REQUEUED":
            text = f"  re-queued: {p.get('reason')}"
        elif kind == "RESULT":
            text = f"{p.get('status')}: {p.get('reason', '')}"
            if p.get("score_ms") is not None:
                text += f"\nscore: {_ms(p['score_ms'])} ms"
        if text:
            print(text, flush=True)

    def result(self, detail: dict[str, Any]) -> None:
        self.line(f"{detail['status']}: {detail['status_reason']}")

    def detail(self, d: dict[str, Any]) -> None:
        if self.json_mode:
            print(json.dumps(d, indent=2))
            return
        print(f"{d['id']}  {d['problem']}  {d['language']}  {d['mode']}  pool {d['pool']}")
        where = f" (position {d['queue_position']} in the queue)" if d.get("queue_position") else ""
        print(f"status: {d['status']}{where}")
        if d.get("status_reason"):
            print(f"reason: {d['status_reason']}")
        if d.get("vm_start"):
            print(f"vm: {d['vm_start']}")
        results = d.get("results") or {}
        for t in results.get("tests", []):
            print(f"  {'✓' if t.get('passed') else '✗'} {t.get('case')}" + (f": {t['message']}" if t.get("message")
                                                                              else ""))
        for b in results.get("benchmarks", []):
            print(f"  bench {b.get('case')}: mean {_ms(b.get('mean_ms'))} ms over {b.get('runs')} runs")
        if d.get("score_ms") is not None:
            print(f"score: {_ms(d['score_ms'])} ms")

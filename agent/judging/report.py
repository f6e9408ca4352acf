"""Human-readable text from a job's events: live progress lines and the final report.

Used by `python -m agent run`. It only reads event payloads (see agent.judging.judge for their shape) and
tolerates missing keys, so an older or newer judge still gets a readable report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

PASS_MARK, FAIL_MARK = "✓", "✗"
BENCH_COLUMNS = (  # (header, payload key, format)
    ("runs", "runs", "{:d}"),
    ("mean ms", "mean_ms", "{:.4f}"),
    ("median ms", "median_ms", "{:.4f}"),
    ("std ms", "std_ms", "{:.4f}"),
    ("min ms", "min_ms", "{:.4f}"),
    ("max ms", "max_ms", "{:.4f}"),
    ("GFLOPS", "gflops", "{:.2f}"),
    ("GB/s", "gbps", "{:.2f}"),
)
RANKED_COLUMNS = (
    ("runs", "runs", "{:d}"),
    ("mean ms", "mean_ms", "{:.4f}"),
    ("median ms", "median_ms", "{:.4f}"),
    ("95% interval ms", "ci95_ms", "{}"),
    ("reference ms", "reference_mean_ms", "{:.4f}"),
    ("speedup", "speedup", "{:.3f}"),
)


def progress_line(event: dict) -> str | None:
    """One line for a live event, or None for events not worth a line (heartbeats)."""
    kind, p = event.get("type"), event.get("payload") or {}
    if kind == "STATUS":
        return f"· {p.get('status', '?')}"
    if kind == "COMPILE_RESULT":
        cached = " (cached)" if p.get("cached") else ""
        verdict = "ok" if p.get("ok") else "failed"
        return f"  compile {verdict}{cached} in {_fmt(p.get('seconds'), '{:.2f}')} s"
    if kind == "TEST_RESULT":
        mark = PASS_MARK if p.get("passed") else FAIL_MARK
        line = f"  {mark} test {_position(p)} {p.get('case', '?')} ({_fmt(p.get('seconds'), '{:.2f}')} s)"
        return line if p.get("passed") else f"{line}: {_first_line(p.get('message'))}"
    if kind == "BENCHMARK_RESULT":
        return (f"  bench {_position(p)} {p.get('case', '?')}: {_fmt(p.get('runs'), '{:d}')} runs, "
                f"mean {_fmt(p.get('mean_ms'), '{:.4f}')} ms")
    if kind == "RANKED_RESULT":
        return (f"  ranked {_position(p)} {p.get('case', '?')}: {_fmt(p.get('runs'), '{:d}')} runs, "
                f"mean {_fmt(p.get('mean_ms'), '{:.4f}')} ms, speedup {_fmt(p.get('speedup'), '{:.3f}')}")
    if kind == "RESULT":
        return f"· {p.get('status', '?')}"
    return None


def format_report(events: Sequence[dict], *, title: str = "") -> str:
    """The report printed after a job: compile, tests, benchmarks, score, then status and reason."""
    by_type: dict[str, list[dict]] = {}
    for event in events:
        by_type.setdefault(str(event.get("type")), []).append(event.get("payload") or {})
    result = (by_type.get("RESULT") or [{}])[-1]
    lines = [title, "=" * len(title)] if title else []

    for compiled in by_type.get("COMPILE_RESULT", []):
        cached = ", cached" if compiled.get("cached") else ""
        verdict = "ok" if compiled.get("ok") else "FAILED"
        lines.append(f"Compile: {verdict} ({_fmt(compiled.get('seconds'), '{:.2f}')} s{cached})")
        output = str(compiled.get("output") or "").rstrip()
        if output and (not compiled.get("ok") or compiled.get("report")):  # a report's summary is its output
            lines.extend("  " + line for line in output.splitlines()[:40])

    tests = by_type.get("TEST_RESULT", [])
    if tests:
        lines += ["", "Tests"] + _test_table(tests)
    benchmarks = by_type.get("BENCHMARK_RESULT", [])
    if benchmarks:
        lines += ["", "Benchmarks"] + _benchmark_table(benchmarks)
    ranked = by_type.get("RANKED_RESULT", [])
    if ranked:
        lines += ["", "Ranked pass (secret inputs)"] + _benchmark_table(ranked, RANKED_COLUMNS)
    summary = result.get("summary")
    passed_pass = summary.get("ranked") if isinstance(summary, dict) else None
    if isinstance(passed_pass, dict) and passed_pass.get("passed"):
        lines += ["", f"Ranked score: {_fmt(passed_pass.get('score_ms'), '{:.4f}')} ms, 95% interval "
                  f"{_interval(passed_pass.get('ci95_ms'))} ms, speedup {_fmt(passed_pass.get('speedup'), '{:.3f}')}"]
    score = result.get("score_ms")
    if isinstance(score, int | float) and not isinstance(score, bool):
        lines += ["", f"Score: {score:.4f} ms (geometric mean of the case means)"]

    status, reason = result.get("status", "NO RESULT"), result.get("reason") or ""
    lines += ["", f"Result: {status}" + (f" — {reason}" if reason else "")]
    return "\n".join(lines).lstrip("\n") + "\n"


def _test_table(tests: Iterable[dict]) -> list[str]:
    tests = list(tests)
    width = max(len(str(t.get("case", "?"))) for t in tests)
    rows = []
    for t in tests:
        mark = PASS_MARK if t.get("passed") else FAIL_MARK
        row = f"  {mark} {str(t.get('case', '?')):<{width}}  {_fmt(t.get('seconds'), '{:.3f}'):>7} s"
        if not t.get("passed"):
            row += f"  {_first_line(t.get('message'))}"
        rows.append(row)
    return rows


def _benchmark_table(benchmarks: Iterable[dict], columns: tuple[tuple[str, str, str], ...] = BENCH_COLUMNS
                     ) -> list[str]:
    header = ["case"] + [h for h, _, _ in columns]
    body = [[str(b.get("case", "?"))] + [_interval(b.get(key)) if key == "ci95_ms" else _fmt(b.get(key), fmt)
                                         for _, key, fmt in columns] for b in benchmarks]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def render(row: list[str]) -> str:
        pairs = enumerate(zip(row, widths, strict=True))
        cells = [cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in pairs]
        return "  " + "  ".join(cells)

    return [render(header)] + [render(row) for row in body]


def _interval(value: Any) -> str:
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"{_fmt(value[0], '{:.4f}')}-{_fmt(value[1], '{:.4f}')}"
    return "-"


def _position(p: dict) -> str:
    index, total = p.get("index"), p.get("total")
    if isinstance(index, int) and isinstance(total, int):
        return f"{index + 1}/{total}"  # the judge counts cases from 0
    return ""


def _fmt(value: Any, fmt: str) -> str:
    if value is None or isinstance(value, bool):
        return "-"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    try:
        return fmt.format(int(value) if fmt == "{:d}" else value)
    except (TypeError, ValueError):
        return str(value)


def _first_line(message: Any) -> str:
    text = str(message or "").strip()
    return text.splitlines()[0] if text else "failed"

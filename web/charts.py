"""A small server-rendered SVG bar chart for benchmark cases: readable without JavaScript, in a
screenshot and in print. The table next to it carries the same numbers for screen readers."""

from __future__ import annotations

from typing import Any

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from core.units import SHORT, format_ms

ROW_H = 30
VALUE_W = 190
BAR_W = 420
# The label column fits the longest case name (right-aligned, it was cut on the left: "24x1024" for
# "1024x1024"): about CHAR_W per character of the 12 px label font, within these bounds; a longer
# name is shortened with an ellipsis, whole in its tooltip and in the table beside the chart.
CHAR_W = 7.2
LABEL_MIN_W, LABEL_MAX_CHARS = 60, 36


def _n(value: float) -> str:
    return f"{value:.1f}"


def benchmark_chart(cases: list[dict[str, Any]]) -> SafeString:
    """Mean time per case as bars with a tick at the median; the rate written beside each bar."""
    rows = [c for c in cases if isinstance(c.get("mean_ms"), int | float)]
    if not rows:
        return mark_safe("")  # noqa: S308 - constant
    # Scale to the slowest mean: a single outlier run must not squash every bar.
    top = max(float(c["mean_ms"]) for c in rows) * 1.05 or 1.0
    names = [str(c.get("case", f"case {i + 1}")) for i, c in enumerate(rows)]
    shown = [n if len(n) <= LABEL_MAX_CHARS else n[:LABEL_MAX_CHARS - 1] + "…" for n in names]
    label_w = max(LABEL_MIN_W, round(16 + CHAR_W * max(len(n) for n in shown)))
    width = label_w + BAR_W + VALUE_W
    height = ROW_H * len(rows) + 26

    def x(value: float) -> float:
        return label_w + BAR_W * max(0.0, value) / top

    parts = [format_html(
        '<svg class="bench-chart" viewBox="0 0 {} {}" width="100%" role="img" aria-labelledby="bench-chart-title">'
        '<title id="bench-chart-title">Mean time per benchmark case, in milliseconds (shorter is faster)</title>',
        width, height)]
    for i, case in enumerate(rows):
        y = 6 + i * ROW_H
        mean = float(case["mean_ms"])
        median = float(case.get("median_ms") or mean)
        rate = case.get("gbps")
        label = _short_ms(mean) + (f" · {rate:.1f} GB/s" if isinstance(rate, int | float) else "")
        bar_h = ROW_H - 10
        parts.append(format_html(
            '<g><text x="{}" y="{}" class="chart-label" text-anchor="end">{}<title>{}</title></text>'
            '<rect x="{}" y="{}" width="{}" height="{}" rx="3" class="chart-bar"><title>{}</title></rect>'
            '<line x1="{}" x2="{}" y1="{}" y2="{}" class="chart-median"/>'
            '<text x="{}" y="{}" class="chart-value">{}</text></g>',
            label_w - 8, y + 15, shown[i], names[i],
            label_w, y, _n(max(1.0, x(mean) - label_w)), bar_h, f"mean {_short_ms(mean)}, median {_short_ms(median)}",
            _n(x(min(median, top))), _n(x(min(median, top))), y - 2, y + bar_h + 2,
            _n(x(mean) + 6), y + 15, label))
    axis_y = 6 + len(rows) * ROW_H
    parts.append(format_html(
        '<line x1="{}" x2="{}" y1="{}" y2="{}" class="chart-axis"/>'
        '<text x="{}" y="{}" class="chart-tick">0</text>'
        '<text x="{}" y="{}" class="chart-tick" text-anchor="end">{}</text></svg>',
        label_w, label_w + BAR_W, axis_y, axis_y, label_w, axis_y + 16, label_w + BAR_W, axis_y + 16,
        escape(_short_ms(top))))
    return mark_safe("".join(parts))  # noqa: S308 - every piece above went through format_html


def _short_ms(value: float) -> str:
    return format_ms(value, SHORT)

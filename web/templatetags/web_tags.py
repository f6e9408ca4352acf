"""Formatting for the pages: times in ms/µs, statuses in words, money, durations, speedups."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template

from core.units import format_ms
from submissions.models import ACTIVE_STATUSES, SUCCESS_STATUSES

register = template.Library()

STATUS_WORDS = {
    "IN_QUEUE": "In queue", "PROVISIONING": "Starting a VM", "COMPILING": "Compiling", "CHECKING": "Checking",
    "BENCHMARKING": "Benchmarking", "RANKING": "Ranking", "ACCEPTED": "Accepted", "CHECKED": "Checked",
    "COMPILED": "Compiled",
    "WRONG_ANSWER": "Wrong answer", "COMPILE_ERROR": "Compile error", "RUNTIME_ERROR": "Runtime error",
    "TIME_LIMIT_EXCEEDED": "Time limit exceeded", "CANCELLED": "Cancelled", "REJECTED": "Rejected",
    "ERROR": "Judge error",
}


@register.filter
def status_words(status: str) -> str:
    return STATUS_WORDS.get(status, status)


@register.filter
def status_tone(status: str) -> str:
    """good | running | bad: a CSS class; the words carry the meaning, colour only repeats it."""
    if status in SUCCESS_STATUSES:
        return "good"
    return "running" if status in ACTIVE_STATUSES else "bad"


@register.filter
def ms(value: Any) -> str:
    return format_ms(value) if isinstance(value, int | float) else "—"


@register.filter
def num(value: Any, digits: int = 2) -> str:
    return f"{value:,.{digits}f}" if isinstance(value, int | float) else "—"


@register.filter
def usd(value: Any) -> str:
    """Money as people read it: cents for amounts over a dollar, more digits for tiny ones."""
    if value is None:
        return "—"
    amount = Decimal(value)
    if amount == 0:
        return "$0.00"
    return f"${amount:,.2f}" if abs(amount) >= 1 else f"${amount:.4f}"


@register.filter
def seconds(value: Any) -> str:
    if not isinstance(value, int | float):
        return "—"
    value = float(value)
    if value < 1:
        return f"{value * 1000:.0f} ms" if value >= 0.001 else "<1 ms"
    if value < 90:
        return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"
    return f"{value / 60:.0f} min"


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def plus_minus(value: Any) -> str:
    """A 95 % interval as "± half its width", the way a score is read: of [low, high], of a ranked
    case (ci95_lo_ms, ci95_hi_ms) or of a submission's ranked score."""
    if isinstance(value, list | tuple):
        interval = tuple(value) if len(value) == 2 else (None, None)
    else:
        interval = (getattr(value, "ci95_lo_ms", None), getattr(value, "ci95_hi_ms", None))
        if interval[0] is None:
            interval = (getattr(value, "ranked_ci95_lo_ms", None), getattr(value, "ranked_ci95_hi_ms", None))
    low, high = interval
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        return ""
    return f"± {format_ms((high - low) / 2)}"


@register.filter
def times(value: Any) -> str:
    """A speedup: "1.42×"."""
    return f"{value:.2f}×" if isinstance(value, int | float) else "—"


@register.filter
def speedup_read(view: Any) -> str:
    """A Speedup (leaderboard.speedup) in words: "1.52× faster (95 % 1.46–1.58×)", "0.89× within noise"."""
    if view is None:
        return "—"
    interval = f" (95 % {view.ci95[0]:.2f}–{view.ci95[1]:.2f}×)" if view.ci95 else ""
    return f"{view.value:.2f}× {view.word}{interval}"



@register.filter
def light_pct(light: Any) -> str:
    """A speed of light ({floor_ms, percent, ...}) as its percentage: "35.6 %", "0.042 %"."""
    percent = light.get("percent") if isinstance(light, dict) else None
    if not isinstance(percent, int | float):
        return "—"
    return f"{percent:.1f} %" if percent >= 1 else f"{percent:.2g} %"


@register.filter
def light_title(light: Any) -> str:
    """What a speed of light was measured against, for a tooltip."""
    if not isinstance(light, dict) or not isinstance(light.get("floor_ms"), int | float):
        return ""
    limit = {"memory": "the pool's peak memory bandwidth", "compute": f"the pool's {light.get('peak_type')} peak",
             "mixed": f"peak bandwidth or the {light.get('peak_type')} peak, case by case"}.get(
        str(light.get("bound")), "the pool's peaks")
    return f"Speed of light: the floor is {format_ms(light['floor_ms'])}, set by {limit}"

"""How HIPJudge writes durations for people: kernel times in ms/µs/ns, and wall-clock durations
(VM uptimes, limits in messages) in s, min and h."""

from __future__ import annotations

# Digits after the point for ≥ 100 ms, ≥ 1 ms and µs: tables show more than chart labels.
PRECISE = (1, 3, 2)
SHORT = (0, 2, 1)


def format_ms(value: float, digits: tuple[int, int, int] = PRECISE) -> str:
    big, mid, micro = digits
    if value >= 100:
        return f"{value:.{big}f} ms"
    if value >= 1:
        return f"{value:.{mid}f} ms"
    if value >= 0.001:
        return f"{value * 1000:.{micro}f} µs"
    return f"{value * 1e6:.0f} ns"


def format_duration(seconds: float) -> str:
    """"45 s", "12 min", "12 min 05 s", "3 h", "3 h 07 min": whole seconds, at most two units."""
    total = max(0, int(seconds))
    if total < 120:
        return f"{total} s"
    minutes, secs = divmod(total, 60)
    if minutes < 120:
        return f"{minutes} min" + (f" {secs:02d} s" if secs else "")
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h" + (f" {minutes:02d} min" if minutes else "")

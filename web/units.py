"""How the site writes durations given in milliseconds: ms, µs or ns, with as many digits as fit."""

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

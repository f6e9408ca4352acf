"""How durations are written for people: one formatter for the admin, the dashboard and messages."""

from __future__ import annotations

import pytest

from core.units import format_duration, format_ms


@pytest.mark.parametrize(("seconds", "words"), [
    (0, "0 s"), (3, "3 s"), (45.9, "45 s"), (119, "119 s"), (120, "2 min"), (150, "2 min 30 s"),
    (900, "15 min"), (7199, "119 min 59 s"), (7200, "2 h"), (3 * 3600 + 7 * 60 + 5, "3 h 07 min"), (-4, "0 s"),
])
def test_a_duration_is_written_in_at_most_two_units(seconds: float, words: str) -> None:
    assert format_duration(seconds) == words


@pytest.mark.parametrize(("ms", "words"), [(250.0, "250.0 ms"), (1.5, "1.500 ms"), (0.0123, "12.30 µs"),
                                           (0.0000005, "0 ns")])
def test_kernel_times_keep_their_own_units(ms: float, words: str) -> None:
    assert format_ms(ms) == words

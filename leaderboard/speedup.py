"""A ranked speedup as a user should read it: the number, its 95 % interval, and a plain word when
it is within noise.

The speedup is the median, over the ranked runs, of the problem's own solution's time over the
kernel's in the same pair (agent/judging/bench.py); its interval here holds that and the ratio of the two
means (_case_interval). A speedup whose interval holds 1, or that is closer to 1 than
HIPJUDGE_SPEEDUP_NOISE, is within noise: the problem's own solution submitted as is lands there,
whichever side of 1 its number falls.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import F


@dataclass(frozen=True)
class Speedup:
    value: float
    ci95: tuple[float, float] | None
    within_noise: bool

    @property
    def word(self) -> str:
        if self.within_noise:
            return "within noise"
        return "faster" if self.value > 1 else "slower"

    @property
    def sentence(self) -> str:
        noise = settings.HIPJUDGE_SPEEDUP_NOISE
        if self.within_noise:
            return (f"within noise: as fast as the problem's own solution (a speedup under about {noise:g}x "
                    "either way is noise on this pool)")
        return f"{self.word} than the problem's own solution"


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None


def _case_interval(get: Any, paired: float) -> tuple[float, float] | None:
    """One case's speedup interval: around the paired median, by the spread of both series (their
    95 % intervals relative to their means, in quadrature), widened to hold the ratio of the means
    with its interval. Both estimate the same thing; where they disagree the truth is not known
    better than the two together."""
    mine = get("ci95_ms") or (get("ci95_lo_ms"), get("ci95_hi_ms"))
    reference = get("reference_ci95_ms") or (get("reference_ci95_lo_ms"), get("reference_ci95_hi_ms"))
    mean, ref = _number(get("mean_ms")), _number(get("reference_mean_ms"))
    mine_lo, mine_hi, ref_lo, ref_hi = (_number(v) for v in (*mine, *reference))
    if None in (mean, ref, mine_lo, mine_hi, ref_lo, ref_hi):
        return None
    assert mean and ref and mine_lo and mine_hi and ref_lo and ref_hi
    half = math.log1p(math.hypot((mine_hi - mine_lo) / 2 / mean, (ref_hi - ref_lo) / 2 / ref))
    return min(paired * math.exp(-half), ref_lo / mine_hi), max(paired * math.exp(half), ref_hi / mine_lo)


def _geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def speedup_of(*, value: float | None, cases: Iterable[Any]) -> Speedup | None:
    """The speedup `value` (the geometric mean of the cases') read with its ranked cases
    (RankedCaseResult rows or RANKED_RESULT payloads); None without a value. Over the cases the
    interval is the geometric mean of their lows and of their highs."""
    if not isinstance(value, int | float) or value <= 0:
        return None
    intervals: list[tuple[float, float]] = []
    for case in cases:
        get = case.get if isinstance(case, dict) else lambda name, c=case: getattr(c, name, None)
        interval = _case_interval(get, _number(get("speedup")) or value)
        if interval is None:
            intervals = []
            break
        intervals.append(interval)
    ci95 = (_geometric_mean([i[0] for i in intervals]), _geometric_mean([i[1] for i in intervals])) \
        if intervals else None
    noise = settings.HIPJUDGE_SPEEDUP_NOISE
    within = 1 / noise < value < noise or (ci95 is not None and ci95[0] <= 1 <= ci95[1])
    return Speedup(value=value, ci95=ci95, within_noise=within)


def ranked_speedups(*, submissions: list[Any]) -> dict[Any, Speedup]:
    """The speedup of each of these ranked submissions (leaderboard rows) with the cases of the
    result that shows, in one query."""
    from leaderboard.entries import entry_of
    from leaderboard.models import RankedCaseResult, Review

    if not submissions:
        return {}
    held = {s.pk: s.judging_id for s in submissions if entry_of(s).review == Review.PENDING}
    cases: dict[Any, dict[Any, list[Any]]] = {}
    for case in (RankedCaseResult.objects.filter(judging__submission_id__in=[s.pk for s in submissions],
                                                 judging__ranked_score_ms__isnull=False)
                 .annotate(submission_id=F("judging__submission_id"), number=F("judging__number"))
                 .order_by("-number", "index")):
        submission_id = case.submission_id  # type: ignore[attr-defined]
        if held.get(submission_id) != case.judging_id:
            cases.setdefault(submission_id, {}).setdefault(case.judging_id, []).append(case)
    views = {}
    for submission in submissions:
        by_judging = cases.get(submission.pk, {})
        latest = next(iter(by_judging.values()), [])  # the newest judging first (dicts keep their order)
        view = speedup_of(value=entry_of(submission).ranked_speedup, cases=latest)
        if view is not None:
            views[submission.pk] = view
    return views

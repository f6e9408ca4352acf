"""The review rules of the leaderboard: a ranked result that looks too good (it beats the pool's
best by more than 2x, or one of its cases lands within 1.5x of the physical floor of the pool's
device) shows only once staff approve it; and the sentence that says how a ranked score comes about."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleets.models import Pool
from leaderboard.speed_of_light import case_floor
from submissions.ranking import RankedResult

BEAT_FACTOR = 2.0
FLOOR_FACTOR = 1.5

# Said on the problem page, the leaderboard and the API: how a ranked score comes about.
SCORING = (
    "Only submissions to the leaderboard rank. After the tests and the public benchmark, a ranked pass "
    "runs the kernel on ranked shapes that differ from every public one, with inputs drawn from a secret "
    "seed the platform picks for each submission; every timed output is checked again. The score is the "
    "geometric mean of the ranked cases' mean times (lower is better), shown with its 95 % confidence "
    "interval; the speedup is the geometric mean, over the ranked cases, of the problem's own solution's "
    "time divided by yours, timed right after each of your runs on the same inputs (the median over "
    "these pairs). Equal scores rank by who submitted first. "
    "A result more than 2x faster than the pool's best, or within 1.5x of what the device's peak "
    "bandwidth and compute allow, is shown once staff have reviewed it.")


def review_reasons(*, result: RankedResult, previous_best_ms: float | None, definition: Mapping[str, Any],
                   pool: Pool) -> list[str]:
    """Why this result must wait for staff before it shows; empty when it may show at once."""
    reasons = []
    if previous_best_ms is not None and result.score_ms * BEAT_FACTOR < previous_best_ms:
        reasons.append(f"its score {result.score_ms:.6g} ms beats the pool's best {previous_best_ms:.6g} ms by "
                       f"{previous_best_ms / result.score_ms:.1f}x (more than {BEAT_FACTOR:g}x)")
    peaks = pool.peaks
    for case in result.cases if peaks else ():
        assert peaks is not None
        # The compute peak is that of the type the problem's work runs in (an fp8 GEMM's, not fp32's).
        found = case_floor(definition=definition, case_name=case.case, peaks=peaks)
        if found and case.mean_ms < FLOOR_FACTOR * found.floor_ms:
            reasons.append(f"case {case.case!r} took {case.mean_ms:.6g} ms, within {FLOOR_FACTOR:g}x of the physical "
                           f"floor {found.floor_ms:.6g} ms of pool {pool.name!r} ({peaks.gbps:g} GB/s, "
                           f"{peaks.compute(found.peak_type):g} GFLOPS {found.peak_type})")
    return reasons

"""Records are confirmed before they rank.

A ranked result that would beat the pool's best, or its owner's own best by more than the noise, is
a record. It does not rank from one judging: the submission is judged again at once, with a new
secret seed, in the background class of the fair queue (charged to the platform, like a rejudge),
on another VM where the pool has a warm one. It ranks only when the two results agree (their 95 %
intervals overlap, or they are within 1.2x of each other: two moments of a shared machine), and then
with the slower of the two: a lucky or forged judging sets nothing on its own. When they disagree,
or the second judging reaches no verdict, the record waits for staff with both results in its
review reason. A second judging that fails the kernel (wrong on the new inputs) ends its standing
as any verdict does.

While a record is being confirmed, whatever the submission showed before stays as it was: a
confirmation never hides a result its owner already earned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.queue import enqueue
from leaderboard.selectors import listed_results
from submissions.models import Judging, Status, Submission
from submissions.ranking import RankedResult

# Without an interval, two results within this share of each other agree, and a result beats its
# owner's best "by more than the noise" only beyond it.
NOISE = 0.10
# Two judgings at different moments of a shared machine drift apart by more than either's interval
# says (each interval is that judging's own runs): they also agree within this factor, the noise a
# timing attack must beat to gain anything (bench/attacks.py).
AGREEMENT = 1.2


@dataclass(frozen=True)
class Result:
    score_ms: float
    low_ms: float
    high_ms: float

    @classmethod
    def of(cls, score_ms: float, interval: tuple[float, float] | None) -> Result:
        if interval is None or not interval[0] <= score_ms <= interval[1]:
            return cls(score_ms, score_ms / (1 + NOISE), score_ms * (1 + NOISE))
        return cls(score_ms, interval[0], interval[1])

    @classmethod
    def ranked(cls, ranked: RankedResult) -> Result:
        return cls.of(ranked.score_ms, ranked.ci95_ms)

    @classmethod
    def of_judging(cls, judging: Judging) -> Result | None:
        if judging.ranked_score_ms is None:
            return None
        lo, hi = judging.ranked_ci95_lo_ms, judging.ranked_ci95_hi_ms
        return cls.of(judging.ranked_score_ms, (lo, hi) if lo is not None and hi is not None else None)

    def text(self) -> str:
        return f"{self.score_ms:.6g} ms [{self.low_ms:.6g}, {self.high_ms:.6g}]"


def record_reasons(*, submission: Submission, ranked: RankedResult) -> list[str]:
    """Why this ranked result is a record that must be confirmed; empty when it may rank at once."""
    new = Result.ranked(ranked)
    shown = listed_results(problem_id=submission.problem_id, pool_id=submission.pool_id)
    pool_best = shown.exclude(pk=submission.pk).order_by("entry__ranked_score_ms").values_list(
        "entry__ranked_score_ms", flat=True).first()
    if pool_best is None:
        return [f"it would be the first ranked result of pool {submission.pool.name!r}"]
    if new.score_ms < pool_best:
        return [f"its score {new.text()} beats the pool's best {pool_best:.6g} ms"]
    own = shown.filter(user_id=submission.user_id).order_by("entry__ranked_score_ms").values_list(
        "entry__ranked_score_ms", "entry__ranked_ci95_lo_ms", "entry__ranked_ci95_hi_ms").first()
    if own is not None and own[0] is not None:
        best = Result.of(own[0], (own[1], own[2]) if own[1] is not None and own[2] is not None else None)
        if new.high_ms < best.low_ms:
            return [f"its score {new.text()} beats its owner's best {best.text()} by more than the noise"]
    return []


def judging_that_ranks(judging: Judging) -> Judging | None:
    """Of a judging and the one whose record it confirms, the one whose ranked result ranks: the
    slower (a confirmation that ended without one leaves the first)."""
    first = Judging.objects.filter(pk=judging.confirms_id).first() if judging.confirms_id else None
    ranked = [j for j in (judging, first) if j is not None and j.ranked_score_ms is not None]
    return max(ranked, key=lambda j: j.ranked_score_ms or 0.0) if ranked else None


def agree(first: Result, second: Result) -> bool:
    """Both judgings measured the same kernel: their intervals overlap, or their scores are within
    the machine's noise of each other."""
    overlap = first.low_ms <= second.high_ms and second.low_ms <= first.high_ms
    slower, faster = max(first.score_ms, second.score_ms), min(first.score_ms, second.score_ms)
    return overlap or slower <= AGREEMENT * faster


def records_confirm_soon(*, submission_ids: list[Any] | None = None) -> int:
    """Queue the confirmation of every record whose judging ended and whose VM was given back (of
    these submissions, or all), on submissions' `judgings_released`: the runner sends it after the
    release, the sweep in case that was lost. The task itself is a no-op when the record was
    confirmed already."""
    pending = Submission.objects.filter(status=Status.ACCEPTED, judging__record=True)
    if submission_ids is not None:
        pending = pending.filter(pk__in=submission_ids)
    count = 0
    for submission_id, judging_id in pending.values_list("pk", "judging_id"):
        enqueue("leaderboard.tasks.confirm_record", str(submission_id), str(judging_id))
        count += 1
    return count

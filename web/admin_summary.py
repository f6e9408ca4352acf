"""What the admin's submission page shows first, before the stored fields: the verdict, the scores
with their intervals, the speed of light, the cost, the VM, and where it stands on the leaderboard
and in review."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from billing.amounts import ZERO
from billing.selectors import submission_cost_parts
from leaderboard.entries import entry_of
from leaderboard.models import LeaderboardEntry
from leaderboard.selectors import Standing, submission_ranked, submission_standing
from leaderboard.speed_of_light import case_floor
from submissions.models import Submission
from submissions.results import submission_results


@dataclass(frozen=True)
class CaseLight:
    case: str
    mean_ms: float
    floor_ms: float

    @property
    def pct(self) -> float:
        """How close to the physical floor: 100 % would be the device's peak bandwidth or compute."""
        return 100 * self.floor_ms / self.mean_ms


@dataclass
class AdminSummary:
    submission: Submission
    entry: LeaderboardEntry  # its review, invalidation (leaderboard.entries: the defaults where it has none)
    ranked: dict[str, Any] | None
    standing: Standing
    cost: Decimal
    cost_parts: dict[str, Decimal]
    light: list[CaseLight] = field(default_factory=list)  # the cases that count: ranked, else benchmarks
    light_of: str = ""  # "ranked" | "benchmark" | "" (no peaks, or nothing timed)

    @property
    def standing_words(self) -> str:
        return self.standing.state.replace("_", " ")

    @property
    def vm_start_words(self) -> str:
        return self.submission.vm_start.replace("_", " ").lower()

    @property
    def free(self) -> bool:
        return not self.cost and not self.submission.pool.hourly_rate

    @property
    def light_pct(self) -> float | None:
        """The geometric mean of the cases' speed of light, in %."""
        if not self.light:
            return None
        return math.exp(sum(math.log(c.pct) for c in self.light) / len(self.light))


def speed_of_light(*, submission: Submission, cases: list[Any], group: str) -> list[CaseLight]:
    """Each timed case's floor on the submission's pool (its peaks for the problem's flops_type) against its mean."""
    peaks = submission.pool.peaks
    if peaks is None:
        return []
    definition = (submission.problem_version.bundle or {}).get("definition") or {}
    light = []
    for case in cases:
        get = case.get if isinstance(case, dict) else lambda name, c=case: getattr(c, name, None)
        name, mean = get("case"), get("mean_ms")
        found = case_floor(definition=definition, case_name=str(name), peaks=peaks, group=group)
        if found and isinstance(mean, int | float) and mean > 0:
            light.append(CaseLight(str(name), float(mean), found.floor_ms))
    return light


def submission_admin_summary(*, submission: Submission) -> AdminSummary:
    ranked = submission_ranked(submission=submission)
    parts = submission_cost_parts(submission=submission)
    summary = AdminSummary(submission=submission, entry=entry_of(submission), ranked=ranked,
                           standing=submission_standing(submission=submission), cost=sum(parts.values(), ZERO),
                           cost_parts=parts)
    if submission.emulated:
        return summary  # emulated times mean nothing
    if ranked and ranked["cases"]:
        summary.light = speed_of_light(submission=submission, cases=ranked["cases"], group="ranked")
        summary.light_of = "ranked" if summary.light else ""
    if not summary.light and submission.score_ms is not None:
        benchmarks = submission_results(submission=submission)["benchmarks"]
        summary.light = speed_of_light(submission=submission, cases=benchmarks, group="benchmarks")
        summary.light_of = "benchmark" if summary.light else ""
    return summary

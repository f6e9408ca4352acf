"""Reads of the speed of light: each timed case and each score against the roofline floor of the
pool's device (agent.protocol's arithmetic with Pool.peaks and the problem's flops_type). What the API, the
pages and the CLI show as `speed_of_light: {floor_ms, percent, peak_type, bound}`; the review rule
of the leaderboard (submissions.ranking) uses the same floors. A score is the geometric mean of its
cases' times, so its floor is the geometric mean of their floors and its percentage the geometric
mean of theirs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Window
from django.db.models.functions import RowNumber

from agent.problems import ExprError, evaluate
from agent.protocol import Floor, Peaks, floor, flops_type_of, geometric_floor
from fleets.models import Pool
from leaderboard.entries import entry_of
from leaderboard.selectors import LISTED  # the leaderboard's own rule of what shows
from submissions.models import ProblemVersion, Submission


def case_floor(*, definition: Mapping[str, Any], case_name: str, peaks: Peaks, group: str = "ranked") -> Floor | None:
    """The least time the case (of problem.yaml's `group`) can take on a device with these peaks:
    its bytes at peak bandwidth or its FLOPs at the peak of the problem's flops_type, whichever
    is longer. None when it cannot be told."""
    case = next((c for c in definition.get(group) or [] if isinstance(c, Mapping) and c.get("name") == case_name),
                None)
    if case is None or not isinstance(case.get("params"), Mapping):
        return None
    try:
        moved = float(evaluate(definition.get("bytes", 0), case["params"]))
        work = float(evaluate(definition.get("flops", 0), case["params"]))
    except (ExprError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return floor(flops=work, nbytes=moved, flops_type=flops_type_of(definition), peaks=peaks)


def score_floor(*, definition: Mapping[str, Any], peaks: Peaks, group: str, device_class: str) -> Floor | None:
    """The floor of a score over every case of `group` the device class runs (None if one has none)."""
    names = [str(c.get("name")) for c in definition.get(group) or []
             if isinstance(c, Mapping) and device_class in (c.get("devices") or [])]
    floors = [case_floor(definition=definition, case_name=name, peaks=peaks, group=group) for name in names]
    if not floors or any(f is None for f in floors):
        return None
    return geometric_floor([f for f in floors if f is not None])


def light(found: Floor | None, time_ms: Any) -> dict[str, Any] | None:
    """{floor_ms, percent, peak_type, bound} of a time against a floor; None when either is unknown."""
    if found is None or isinstance(time_ms, bool) or not isinstance(time_ms, int | float):
        return None
    percent = found.percent_of(float(time_ms))
    if percent is None:
        return None
    return {"floor_ms": found.floor_ms, "percent": percent, "peak_type": found.peak_type, "bound": found.bound}


def _definition(version: ProblemVersion | None) -> Mapping[str, Any]:
    return ((version.bundle if version else None) or {}).get("definition") or {}


def _device_class(pool: Pool) -> str:
    return "host" if pool.device == "host" else "gpu"


@dataclass(frozen=True)
class SubmissionLight:
    """The speed of light of one submission's results (nothing for an emulated run: its times mean nothing)."""

    definition: Mapping[str, Any]
    peaks: Peaks | None
    device_class: str

    def case(self, case: Any, group: str) -> dict[str, Any] | None:
        get = case.get if isinstance(case, Mapping) else lambda name: getattr(case, name, None)
        if self.peaks is None:
            return None
        found = case_floor(definition=self.definition, case_name=str(get("case")), peaks=self.peaks, group=group)
        return light(found, get("mean_ms"))

    def cases(self, cases: Iterable[Any], group: str) -> list[dict[str, Any]]:
        """Case payloads (dicts) with their `speed_of_light` added (copies: the events stay as stored)."""
        return [{**c, "speed_of_light": self.case(c, group)} for c in cases]

    def score(self, score_ms: Any, group: str) -> dict[str, Any] | None:
        if self.peaks is None:
            return None
        found = score_floor(definition=self.definition, peaks=self.peaks, group=group, device_class=self.device_class)
        return light(found, score_ms)


def submission_light(*, submission: Submission) -> SubmissionLight:
    peaks = None if submission.emulated else submission.pool.peaks
    return SubmissionLight(definition=_definition(submission.problem_version), peaks=peaks,
                           device_class=_device_class(submission.pool))


def leaderboard_light(*, rows: list[Submission], pool: Pool) -> None:
    """Set each leaderboard row's `speed_of_light` (its ranked score against the pool's floor): one
    query for the problem versions the rows were judged on."""
    peaks = pool.peaks
    versions = {row.problem_version_id for row in rows}
    definitions = dict(ProblemVersion.objects.filter(pk__in=versions).values_list("pk", "bundle__definition"))
    floors: dict[Any, Floor | None] = {}
    for version_id, definition in definitions.items():
        floors[version_id] = score_floor(definition=definition or {}, peaks=peaks, group="ranked",
                                         device_class=_device_class(pool)) if peaks else None
    for row in rows:
        row.speed_of_light = light(floors.get(row.problem_version_id), entry_of(row).ranked_score_ms)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class PoolLight:
    pool: str
    score_ms: float
    submission_id: Any
    floor_ms: float
    percent: float
    peak_type: str
    bound: str


# What Pool.peaks reads, fetched beside each best result (no second query for the pools).
_PEAK_FIELDS = ("device", "peak_gbps", "peak_gflops", "peak_gflops_by_type")


def best_light(*, problem_ids: list[Any] | None = None) -> dict[Any, list[PoolLight]]:
    """Per problem, the best shown ranked result's speed of light on each pool (by pool name), in
    one query: the best result per problem and pool, with its pool's peaks and the definition of
    the problem version it was judged on."""
    shown = Submission.objects.filter(LISTED)
    if problem_ids is not None:
        shown = shown.filter(problem_id__in=problem_ids)
    best = (shown.annotate(place=Window(RowNumber(), partition_by=[F("problem_id"), F("pool_id")],
                                        order_by=[F("entry__ranked_score_ms").asc(), F("created_at").asc(),
                                                  F("id").asc()]))
            .filter(place=1)
            .values("id", "problem_id", "pool__name", *(f"pool__{f}" for f in _PEAK_FIELDS),
                    definition=F("problem_version__bundle__definition"), ranked_ms=F("entry__ranked_score_ms")))
    found: dict[Any, list[PoolLight]] = {}
    for b in best:
        pool = Pool(name=b["pool__name"], **{f: b[f"pool__{f}"] for f in _PEAK_FIELDS})
        peaks = pool.peaks
        score = score_floor(definition=b["definition"] or {}, peaks=peaks, group="ranked",
                            device_class=_device_class(pool)) if peaks else None
        said = light(score, b["ranked_ms"])
        if said is not None:
            found.setdefault(b["problem_id"], []).append(PoolLight(pool=pool.name, score_ms=b["ranked_ms"],
                                                                   submission_id=b["id"], **said))
    for pools in found.values():
        pools.sort(key=lambda p: p.pool)
    return found

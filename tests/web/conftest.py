"""Fixtures for the page tests: submissions in every interesting state, with the events the
platform records for them (built directly, no worker: these tests are about rendering)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

PASSWORD = "correct horse battery"


def _events(submission: Any, events: list[tuple[str, dict]]) -> None:
    from submissions.models import SubmissionEvent

    now = timezone.now()
    SubmissionEvent.objects.bulk_create([
        SubmissionEvent(submission=submission, seq=i, type=kind, payload=payload, at=now + timedelta(seconds=i),
                        attempt=1)
        for i, (kind, payload) in enumerate(events, start=1)])
    submission.last_seq = len(events)
    submission.save(update_fields=["last_seq"])


def _bench(case: str, index: int, mean: float) -> dict:
    return {"case": case, "index": index, "total": 2, "runs": 10, "mean_ms": mean, "median_ms": mean,
            "std_ms": mean / 100, "min_ms": mean * .95, "max_ms": mean * 1.1, "gflops": 1.5, "gbps": 18.2}


@pytest.fixture
def make_submission(problems_loaded: None, local_pool: Any) -> Callable[..., Any]:
    """make_submission(user, kind) with kind accepted | ranked | wrong | compile_error | running | queued
    (ranked: an accepted leaderboard submission whose ranked pass scored `score`)."""
    from leaderboard.models import LeaderboardEntry, RankedCaseResult
    from submissions.models import Judging, Problem, Submission

    def make(user: Any, kind: str = "accepted", *, score: float = 0.5, created_at: Any = None) -> Any:
        problem = Problem.objects.get(slug="vector-add")
        sub = Submission.objects.create(
            user=user, problem=problem, problem_version=problem.current_version, pool=local_pool,
            language="cpp", mode="leaderboard" if kind == "ranked" else "benchmark",
            source="extern \"C\" void solution() {}\n", status="IN_QUEUE", queued_at=timezone.now())
        judging = Judging.objects.create(submission=sub, number=1, problem_version=problem.current_version,
                                         first_attempt=1, ranked_seed=123456789012345 if kind == "ranked" else None)
        sub.judging = judging
        ranked_case = {"case": "n=3000017", "index": 0, "total": 1, "runs": 12, "mean_ms": score,
                       "median_ms": score, "ci95_ms": [score * .98, score * 1.02], "reference_mean_ms": score * 1.5,
                       "speedup": 1.5, "gflops": 1.0, "gbps": 10.0}
        events: list[tuple[str, dict]] = [("STATUS", {"status": "IN_QUEUE", "pool": "local"})]
        if kind != "queued":
            events += [("VM", {"vm_start": "COLD_START", "pool": "local", "attempt": 1}),
                       ("STATUS", {"status": "PROVISIONING"}), ("VM_READY", {}), ("STATUS", {"status": "COMPILING"})]
        fields: dict[str, Any] = {"vm_start": "" if kind == "queued" else "COLD_START", "attempt": 1,
                                  "judging": judging}
        if kind == "compile_error":
            events += [("COMPILE_RESULT", {"ok": False, "output": "sol.cpp:1: error: expected ';'", "seconds": .2})]
            fields.update(status="COMPILE_ERROR", status_reason="compilation failed: sol.cpp:1: error: expected ';'")
        elif kind in ("accepted", "ranked", "wrong", "running"):
            events += [("COMPILE_RESULT", {"ok": True, "output": "", "cached": False, "seconds": .4}),
                       ("STATUS", {"status": "CHECKING"}),
                       ("TEST_RESULT", {"case": "n=1", "index": 0, "total": 4, "passed": True, "seconds": .01})]
            if kind == "wrong":
                events += [("TEST_RESULT", {"case": "n=1000", "index": 1, "total": 4, "passed": False,
                                            "message": "c[17]: expected 1.5, got 0 (first of 983 mismatches)"})]
                fields.update(status="WRONG_ANSWER", status_reason="test 'n=1000' failed: c[17]: expected 1.5, got 0")
            elif kind in ("accepted", "ranked"):
                events += [("TEST_RESULT", {"case": f"n={n}", "index": i, "total": 4, "passed": True, "seconds": .01})
                           for i, n in enumerate((1000, 65537, 1048576), start=1)]
                events += [("STATUS", {"status": "BENCHMARKING"}), ("BENCHMARK_RESULT", _bench("n=2^20", 0, score)),
                           ("BENCHMARK_RESULT", _bench("n=2^22", 1, score * 4))]
                fields.update(status="ACCEPTED", status_reason="all 4 tests passed", score_ms=score)
                if kind == "ranked":
                    events += [("STATUS", {"status": "RANKING"}), ("RANKED_RESULT", ranked_case)]
                    LeaderboardEntry.objects.create(
                        submission=sub, ranked_score_ms=score, ranked_ci95_lo_ms=score * .98,
                        ranked_ci95_hi_ms=score * 1.02, ranked_speedup=1.5, ranked_at=timezone.now())
                    Judging.objects.filter(pk=judging.pk).update(ranked_passed=True, ranked_score_ms=score)
                    RankedCaseResult.objects.create(
                        judging=judging, case="n=3000017", index=0, runs=12, mean_ms=score, median_ms=score,
                        ci95_lo_ms=score * .98, ci95_hi_ms=score * 1.02, reference_mean_ms=score * 1.5, speedup=1.5)
            else:
                fields.update(status="CHECKING")
        if kind != "running" and kind != "queued":
            events.append(("RESULT", {"status": fields["status"], "reason": fields["status_reason"]}))
            fields["finished_at"] = timezone.now()
        if created_at is not None:
            fields["created_at"] = created_at
        Submission.objects.filter(pk=sub.pk).update(**fields)
        sub.refresh_from_db()
        _events(sub, events)
        return sub

    return make


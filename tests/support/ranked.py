"""Helpers for the leaderboard tests: leaderboard submissions judged as the runner would end them
(the row locked, the agent's RESULT in the contract's shape), without an agent process."""

from __future__ import annotations

import math
from typing import Any

from django.db import transaction

from leaderboard.rejudge import submission_confirm_record
from submissions.models import Status, Submission
from submissions.services import EventIn, append_events_locked, finish_locked, lock_submission, submission_create
from tests.conftest import read_source
from tests.support import fake_agent

HOST_CASE = "n=3000017"  # vector-add's ranked case on the host device class


def submit(user: Any, *, pool: str | None = None, problem: str = "vector-add", mode: str = "leaderboard") -> Submission:
    return submission_create(user=user, problem=problem, language="cpp", mode=mode, pool_name=pool,
                             source=read_source("cpp.cpp", problem))


def end(submission: Submission, result: dict[str, Any]) -> Submission:
    """End the submission with the agent's RESULT payload, as the runner does."""
    with transaction.atomic():
        locked = lock_submission(submission.pk)
        assert locked is not None
        if locked.status == Status.IN_QUEUE:  # as if it had been dispatched and run
            Submission.objects.filter(pk=locked.pk).update(status=Status.RANKING, attempt=locked.attempt + 1)
            locked.refresh_from_db()
        finish_locked(locked, status=result["status"], reason=result.get("reason", ""),
                      score_ms=result.get("score_ms"), summary=result.get("summary"))
    submission.refresh_from_db()
    return submission


def rank(submission: Submission, mean_ms: float, reference_ms: float | None = None,
         case: str = HOST_CASE, *, confirmed_at: float | None = None) -> Submission:
    """End it ACCEPTED with a ranked pass of one case at `mean_ms`; a record (leaderboard.records) is
    then judged a second time as the platform does, at `confirmed_at` (default: the same time)."""
    reference = reference_ms if reference_ms is not None else mean_ms
    second = confirmed_at if confirmed_at is not None else mean_ms
    return end_confirmed(submission, fake_agent.leaderboard_script([(case, mean_ms, reference)])[-1][1],
                         fake_agent.leaderboard_script([(case, second, reference)])[-1][1])


def end_confirmed(submission: Submission, result: dict[str, Any], again: dict[str, Any] | None = None) -> Submission:
    """End it with `result`; a record is then judged a second time, ending with `again` (default the same)."""
    submission = end(submission, result)
    if submission.judging_id is not None and submission_confirm_record(submission_id=submission.pk,
                                                                        judging_id=submission.judging_id):
        submission = end(submission, again or result)
    return submission


def ranked(user: Any, mean_ms: float, **kwargs: Any) -> Submission:
    """A new leaderboard submission of `user`, ranked at `mean_ms`."""
    return rank(submit(user, **{k: v for k, v in kwargs.items() if k in ("pool", "problem")}), mean_ms)


def benchmarked(user: Any, means: dict[str, float]) -> Submission:
    """A vector-add benchmark on the local pool ended ACCEPTED with these case means, as the runner ends it."""
    submission = submit(user, mode="benchmark")
    with transaction.atomic():
        locked = lock_submission(submission.pk)
        assert locked is not None
        Submission.objects.filter(pk=locked.pk).update(status=Status.BENCHMARKING, attempt=locked.attempt + 1)
        locked.refresh_from_db()
        append_events_locked(locked, [
            EventIn("BENCHMARK_RESULT", {"case": name, "index": i, "total": len(means), "runs": 10, "mean_ms": mean,
                                         "median_ms": mean, "gflops": 1.0, "gbps": 1.0}, attempt=locked.attempt)
            for i, (name, mean) in enumerate(means.items())])
        score = math.exp(sum(math.log(m) for m in means.values()) / len(means))
        finish_locked(locked, status=Status.ACCEPTED, reason="ok", score_ms=score, summary={})
    submission.refresh_from_db()
    return submission

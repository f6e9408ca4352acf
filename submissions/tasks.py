"""django-q2 entry points for submissions: take ids, call one service, safe to run twice."""

from __future__ import annotations

from submissions.dispatch import pool_dispatch
from submissions.runner import submission_cancel_job, submission_run
from submissions.sweep import submissions_sweep

# Collected by `manage.py setup_schedules`: name -> (function, minutes between runs).
SCHEDULES = {
    "submissions: sweep (resume, expire, dispatch)": ("submissions.tasks.sweep", 1),
}


def dispatch(pool_id: str) -> int:
    return pool_dispatch(pool_id=pool_id)


def run(submission_id: str) -> None:
    submission_run(submission_id=submission_id)


def confirm_record(submission_id: str, judging_id: str) -> bool:
    """The old dotted path of leaderboard.tasks.confirm_record, for tasks queued before the move
    (the queue stores a task by its path). Nothing queues it now: delete it a release later."""
    from leaderboard.tasks import confirm_record as moved

    return moved(submission_id, judging_id)


def cancel_job(submission_id: str) -> None:
    submission_cancel_job(submission_id=submission_id)


def sweep() -> dict[str, int]:
    return submissions_sweep()

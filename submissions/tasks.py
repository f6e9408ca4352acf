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


def cancel_job(submission_id: str) -> None:
    submission_cancel_job(submission_id=submission_id)


def sweep() -> dict[str, int]:
    return submissions_sweep()

"""django-q2 entry points for the leaderboard: take ids, call one service, safe to run twice."""

from __future__ import annotations

from leaderboard.rejudge import submission_confirm_record


def confirm_record(submission_id: str, judging_id: str) -> bool:
    return submission_confirm_record(submission_id=submission_id, judging_id=judging_id)

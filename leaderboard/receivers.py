"""Reactions to submissions' signals: submissions knows nothing of the leaderboard; we listen."""

from __future__ import annotations

from typing import Any

from leaderboard.records import records_confirm_soon
from leaderboard.standing import judging_standing_close
from submissions.signals import judging_closed, judgings_released


def on_judging_closed(sender: Any, submission: Any, ranked: Any, **kwargs: Any) -> None:
    judging_standing_close(submission=submission, ranked=ranked)


def on_judgings_released(sender: Any, submission_ids: list[Any] | None, **kwargs: Any) -> int:
    return records_confirm_soon(submission_ids=submission_ids)


judging_closed.connect(on_judging_closed, dispatch_uid="leaderboard.on_judging_closed")
judgings_released.connect(on_judgings_released, dispatch_uid="leaderboard.on_judgings_released")

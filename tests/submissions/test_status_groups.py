"""The status groups in submissions/models.py: the one list every app reads, consistent with itself."""

from __future__ import annotations

from submissions.models import (
    ACTIVE_STATUSES,
    AGENT_FINAL_STATUSES,
    FAILED_STATUSES,
    RUNNING_STATUSES,
    SOLVED_STATUSES,
    SUCCESS_STATUSES,
    TERMINAL_STATUSES,
    VERDICT_STATUSES,
    WRONG_STATUSES,
    Status,
)
from web.forms import STATUS_GROUPS


def test_every_status_is_either_active_or_terminal() -> None:
    assert set(ACTIVE_STATUSES) | set(TERMINAL_STATUSES) == set(Status)
    assert not set(ACTIVE_STATUSES) & set(TERMINAL_STATUSES)
    assert set(RUNNING_STATUSES) == set(ACTIVE_STATUSES) - {Status.IN_QUEUE}


def test_a_terminal_status_is_a_success_or_a_failure() -> None:
    assert set(SUCCESS_STATUSES) | set(FAILED_STATUSES) == set(TERMINAL_STATUSES)
    assert not set(SUCCESS_STATUSES) & set(FAILED_STATUSES)
    assert set(SOLVED_STATUSES) < set(SUCCESS_STATUSES)


def test_verdicts_come_from_the_agent_and_rejections_never_do() -> None:
    assert set(SUCCESS_STATUSES) < set(VERDICT_STATUSES) < set(AGENT_FINAL_STATUSES)
    assert set(WRONG_STATUSES) == set(VERDICT_STATUSES) - set(SUCCESS_STATUSES)
    assert Status.REJECTED not in AGENT_FINAL_STATUSES


def test_the_history_filter_groups_cover_every_status_once() -> None:
    grouped = [s for _, statuses in STATUS_GROUPS.values() for s in statuses]
    assert sorted(grouped) == sorted(Status.values)

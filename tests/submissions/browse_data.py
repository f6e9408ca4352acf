"""Submissions for the problem-list tests, made as rows (no judging): `solve(user, slug, status)`."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from leaderboard.models import LeaderboardEntry
from submissions.models import Problem, Submission


def solve(user: Any, slug: str, status: str = "ACCEPTED", *, pool: Any, invalidated: bool = False) -> Submission:
    problem = Problem.objects.get(slug=slug)
    submission = Submission.objects.create(
        user=user, problem=problem, problem_version=problem.current_version, pool=pool, language="cpp",
        source='extern "C" void solution() {}\n', status=status)
    if invalidated:
        LeaderboardEntry.objects.create(submission=submission, invalidated_at=timezone.now())
    return submission

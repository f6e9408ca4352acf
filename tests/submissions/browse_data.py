"""Submissions for the problem-list tests, made as rows (no judging): `solve(user, slug, status)`."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from submissions.models import Problem, Submission


def solve(user: Any, slug: str, status: str = "ACCEPTED", *, pool: Any, invalidated: bool = False) -> Submission:
    problem = Problem.objects.get(slug=slug)
    return Submission.objects.create(
        user=user, problem=problem, problem_version=problem.current_version, pool=pool, language="cpp",
        source='extern "C" void solution() {}\n', status=status,
        invalidated_at=timezone.now() if invalidated else None)

"""The leaderboard's columns moved from Submission to LeaderboardEntry (leaderboard 0002-0003,
submissions 0012): a migrated database keeps every standing, and the move runs backwards too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("leaderboard", "0002_leaderboardentry"), ("submissions", "0011_submission_language_triton")]
AFTER = [("leaderboard", "0003_entries_from_submissions"), ("submissions", "0012_leaderboard_columns_moved")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    """Migrate to `targets`; returns the apps (historical models) at that state."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.fixture
def before_the_move(transactional_db: Any) -> Iterator[Any]:
    apps = migrate(BEFORE)
    try:
        yield apps
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # the other tests' schema


def submission(apps: Any, user: Any, pool: Any, **fields: Any) -> Any:
    Problem = apps.get_model("submissions", "Problem")
    problem, _ = Problem.objects.get_or_create(slug="p", defaults={"title": "P", "difficulty": "easy"})
    version, _ = apps.get_model("submissions", "ProblemVersion").objects.get_or_create(
        problem=problem, content_hash="h", defaults={"bundle": {}})
    return apps.get_model("submissions", "Submission").objects.create(
        user_id=user.pk, problem=problem, problem_version=version, pool_id=pool.pk, language="cpp", source="",
        **fields)


def test_every_standing_moves_to_an_entry_and_back(before_the_move: Any, owner: Any, staff_user: Any,
                                                   local_pool: Any) -> None:
    apps, now = before_the_move, timezone.now()
    ranked = submission(apps, owner, local_pool, mode="leaderboard", ranked_score_ms=1.5, ranked_ci95_lo_ms=1.4,
                        ranked_ci95_hi_ms=1.6, ranked_speedup=2.0, ranked_at=now, review="approved",
                        review_reason="fast", reviewed_by_id=staff_user.pk, reviewed_at=now, public_source=True)
    invalidated = submission(apps, owner, local_pool, mode="benchmark", invalidated_at=now,
                             invalidated_reason="copied", invalidated_by_id=staff_user.pk)
    plain = submission(apps, owner, local_pool, mode="check")

    apps = migrate(AFTER)
    entries = {e.submission_id: e for e in apps.get_model("leaderboard", "LeaderboardEntry").objects.all()}
    assert set(entries) == {ranked.pk, invalidated.pk}  # nothing to keep for the plain check
    moved = entries[ranked.pk]
    assert (moved.ranked_score_ms, moved.ranked_ci95_lo_ms, moved.ranked_ci95_hi_ms, moved.ranked_speedup) == (
        1.5, 1.4, 1.6, 2.0)
    assert (moved.review, moved.review_reason, moved.reviewed_by_id, moved.public_source) == (
        "approved", "fast", staff_user.pk, True)
    assert moved.ranked_at == now and moved.reviewed_at == now
    hidden = entries[invalidated.pk]
    assert (hidden.invalidated_at, hidden.invalidated_reason, hidden.invalidated_by_id) == (now, "copied",
                                                                                            staff_user.pk)
    assert not hasattr(apps.get_model("submissions", "Submission")(), "ranked_score_ms")

    apps = migrate(BEFORE)
    Submission = apps.get_model("submissions", "Submission")
    back = Submission.objects.get(pk=ranked.pk)
    assert (back.ranked_score_ms, back.review, back.reviewed_by_id, back.public_source) == (
        1.5, "approved", staff_user.pk, True)
    assert Submission.objects.get(pk=invalidated.pk).invalidated_reason == "copied"
    assert Submission.objects.get(pk=plain.pk).ranked_score_ms is None
    assert not apps.get_model("leaderboard", "LeaderboardEntry").objects.exists()

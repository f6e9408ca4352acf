"""`manage.py rejudge` and `manage.py export_results` as staff run them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from leaderboard.moderation import submission_invalidate, submission_update
from submissions.models import Judging, QueueClass, Submission
from tests.support.ranked import ranked, submit

pytestmark = pytest.mark.usefixtures("problems_loaded")


@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_rejudge_by_user_problem_or_submission_from_the_command_line(owner: Any, other_user: Any, staff_user: Any,
                                                                     local_pool: Any) -> None:
    mine, theirs = ranked(owner, 2.0), ranked(other_user, 2.5)  # mine, the pool's first, was confirmed: 2 judgings
    said = run("rejudge", "--user", "owner", "--reason", "problem v2", "--by", "staff")
    assert said.splitlines() == ["queued 1 rejudge(s)", f"  {mine.pk}"]
    judging = Submission.objects.get(pk=mine.pk).judging
    assert judging is not None
    assert (judging.number, judging.reason, judging.requested_by) == (3, "problem v2", staff_user)
    said = run("rejudge", "--problem", "vector-add", "--reason", "new rule")
    assert said.splitlines() == ["queued 1 rejudge(s)", f"  {theirs.pk}"]
    assert Submission.objects.get(pk=theirs.pk).queue_class == QueueClass.REJUDGE
    said = run("rejudge", "--submission", str(mine.pk), "--reason", "again")
    assert said.splitlines() == ["queued 0 rejudge(s)", f"skipped {mine.pk}: it is being judged right now"]
    assert Judging.objects.filter(submission=theirs).count() == 2


@pytest.mark.parametrize(("args", "message"), [
    (["--reason", "x"], "Say what to rejudge"),
    (["--user", "ghost", "--reason", "x"], "there is no user 'ghost'"),
    (["--problem", "vector-add", "--reason", "x", "--by", "owner"], "--by: there is no staff user 'owner'"),
])
def test_rejudge_refuses_bad_arguments(owner: Any, local_pool: Any, args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run("rejudge", *args)


def test_export_results_writes_shown_ranked_results_with_source_only_where_public(
        owner: Any, other_user: Any, make_user: Any, staff_user: Any, local_pool: Any, tmp_path: Path) -> None:
    public = ranked(owner, 2.0)
    submission_update(user=owner, submission_id=public.pk, public_source=True)
    private = ranked(other_user, 2.5)
    cheat = ranked(make_user("cheat"), 2.2)
    submission_invalidate(submission_id=cheat.pk, by=staff_user, reason="hacked")
    submit(owner, mode="benchmark")
    path = tmp_path / "results.jsonl"
    run("export_results", "--problem", "vector-add", "--output", str(path))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["user"], r["score_ms"]) for r in rows] == [("owner", 2.0), ("other", 2.5)]
    first, second = rows
    assert first["submission"] == str(public.pk)
    assert first["source"] == public.source
    assert first["public_source"]
    assert second["submission"] is None
    assert second["source"] is None
    assert private.source not in path.read_text()
    assert first["cases"] == [{"case": "n=3000017", "runs": 12, "mean_ms": 2.0, "median_ms": 1.98,
                               "ci95_ms": [1.96, 2.04], "reference_mean_ms": 2.0, "speedup": 1.0, "gflops": 1.0,
                               "gbps": 10.0}]
    assert first["pool"] == "local"
    assert first["device"] == "host"
    assert first["ci95_ms"] == [1.96, 2.04]
    seeds = [str(s) for s in Judging.objects.values_list("ranked_seed", flat=True) if s is not None]
    assert seeds
    assert not any(seed in path.read_text() for seed in seeds)


def test_export_results_to_standard_output_and_its_refusals(owner: Any, local_pool: Any) -> None:
    ranked(owner, 2.0)
    lines = run("export_results", "--pool", "local").splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["user"] == "owner"
    with pytest.raises(CommandError, match="there is no pool 'nowhere'"):
        run("export_results", "--pool", "nowhere")
    with pytest.raises(CommandError, match="there is no problem 'nope'"):
        run("export_results", "--problem", "nope")

"""Rejudge: a new judging against the problem's current version with a new secret seed, in the
background class of the fair queue (after every user's own submission, charged to nobody's caps or
quota), earlier judgings kept as history, the earlier ranked result counting until a verdict."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from billing.models import LedgerEntry, Phase
from billing.selectors import submission_cost
from billing.services import ledger_accrue
from core.exceptions import ApplicationError, ConflictError
from fleets.models import VMInstance, VMState
from fleets.services import vm_release
from leaderboard.models import Review
from leaderboard.moderation import submission_approve
from leaderboard.rejudge import submission_confirm_record, submissions_rejudge
from leaderboard.selectors import leaderboard_rows, submission_rank, submission_ranked, submission_standing
from submissions.dispatch import submission_dispatch_next
from submissions.models import Judging, ProblemVersion, QueueClass, Status, Submission
from submissions.runner import submission_run
from submissions.selectors import queue_order, queue_position, user_quota
from submissions.services import submission_cancel
from submissions.sweep import submissions_sweep
from tests.billing.conftest import T0, move
from tests.conftest import finish
from tests.support import fake_agent
from tests.support.ranked import end, rank, ranked, submit

pytestmark = pytest.mark.usefixtures("problems_loaded")


@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 50


@pytest.fixture
def agent() -> Iterator[fake_agent.FakeAgent]:
    with fake_agent.running(fake_agent.FakeAgent(script=fake_agent.leaderboard_script([("n=3000017", 1.6, 3.0)]))) \
            as running:
        yield running


def new_version() -> ProblemVersion:
    """A new current version of vector-add (as `load_problems` makes after an edit)."""
    old = ProblemVersion.objects.get(problem__slug="vector-add")
    version = ProblemVersion.objects.create(problem=old.problem, content_hash="f" * 64, bundle=old.bundle,
                                            statement=old.statement, signature=old.signature, templates=old.templates)
    old.problem.current_version = version
    old.problem.save()
    return version


def test_a_rejudge_runs_the_current_version_with_a_new_seed_and_keeps_the_history(
        owner: Any, staff_user: Any, local_pool: Any, agent: fake_agent.FakeAgent) -> None:
    submission = ranked(owner, 2.0)  # the pool's first result: a record, confirmed by a second judging
    first = submission.judging
    assert first is not None
    assert first.number == 2
    assert first.confirms is not None
    version = new_version()
    report = submissions_rejudge(by=staff_user, reason="new anti-cheat rule", submission_ids=[str(submission.pk)])
    assert report.queued == [submission.pk]
    assert report.skipped == {}
    submission.refresh_from_db()
    second = submission.judging
    assert second is not None
    assert second.number == 3
    assert second.kind == QueueClass.REJUDGE
    assert second.reason == "new anti-cheat rule"
    assert second.requested_by == staff_user
    assert second.problem_version == version == submission.problem_version
    assert first.problem_version != version
    assert second.ranked_seed not in (None, first.ranked_seed)
    assert submission.status == Status.IN_QUEUE
    assert submission.queue_class == QueueClass.REJUDGE
    assert [e.type for e in submission.events.order_by("-seq")[:2]][::-1] == ["REJUDGE", "STATUS"]
    assert submission_rank(submission=submission) == 1  # the earlier result counts meanwhile

    VMInstance.objects.create(pool=local_pool, state=VMState.WARM, base_url=agent.url, token=fake_agent.TOKEN)
    assert submission_dispatch_next(pool=local_pool) is not None
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    job = agent.jobs[f"{submission.pk}-{submission.attempt}"]
    assert job["ranked_seed"] == second.ranked_seed
    assert job["problem"] == version.bundle
    # 1.6 ms beats its own 2.0 by more than the noise: a record again, confirmed before it counts.
    assert submission.status == Status.ACCEPTED
    assert submission.entry.ranked_score_ms == 2.0
    assert submission_confirm_record(submission_id=submission.pk, judging_id=second.pk)
    assert submission_dispatch_next(pool=local_pool) is not None
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED
    assert submission.entry.ranked_score_ms == pytest.approx(1.6)
    history = list(submission.judgings.order_by("number").values_list("number", "ranked_score_ms", "status"))
    assert history == [(1, 2.0, "ACCEPTED"), (2, 2.0, "ACCEPTED"), (3, pytest.approx(1.6), "ACCEPTED"),
                       (4, pytest.approx(1.6), "ACCEPTED")]


def test_a_rejudge_that_fails_the_ranked_pass_takes_the_rank_away(owner: Any, staff_user: Any,
                                                                  local_pool: Any) -> None:
    submission = ranked(owner, 2.0)
    submissions_rejudge(by=staff_user, reason="new version", submission_ids=[str(submission.pk)])
    failed = end(submission, fake_agent.ranked_failure_script()[-1][1])
    assert failed.status == Status.WRONG_ANSWER
    assert failed.entry.ranked_score_ms is None
    assert submission_rank(submission=failed) is None
    assert failed.entry.ranked_reason.startswith("ranked pass:")
    assert Judging.objects.get(submission=failed, number=1).ranked_score_ms == 2.0  # history kept


def test_a_rejudge_ending_in_a_judge_error_holds_the_earlier_result_for_review(owner: Any, staff_user: Any,
                                                                              local_pool: Any) -> None:
    submission = ranked(owner, 2.0)
    submissions_rejudge(by=staff_user, reason="new version", submission_ids=[str(submission.pk)])
    errored = end(submission, {"status": "ERROR", "reason": "The agent stopped answering."})
    assert errored.entry.ranked_score_ms == 2.0
    assert errored.entry.review == Review.HELD
    assert "rejudge ended in a judge error" in errored.entry.review_reason
    assert submission_rank(submission=errored) is None


def test_a_rejudge_whose_new_result_waits_for_review_keeps_the_author_on_the_leaderboard(
        owner: Any, other_user: Any, staff_user: Any, local_pool: Any) -> None:
    ranked(other_user, 2.0)
    submission = ranked(owner, 2.5)
    first = Judging.objects.get(submission=submission)
    submissions_rejudge(by=staff_user, reason="new version", submission_ids=[str(submission.pk)])
    held = rank(submission, 0.9)  # more than 2x the pool's best: staff look at it first

    def board() -> list[tuple[str, float]]:
        rows = leaderboard_rows(problem_id=submission.problem_id, pool_id=local_pool.pk)
        return [(row.user.username, row.entry.ranked_score_ms) for row in rows]

    assert board() == [("other", 2.0), ("owner", 2.5)]  # the earlier result still shows
    assert held.entry.review == Review.PENDING
    assert "beats the pool's best 2 ms" in held.entry.review_reason
    standing = submission_standing(submission=held)
    assert standing.state == "ranked"
    assert standing.rank == 2
    assert "held for review" in standing.reason
    shown = submission_ranked(submission=held)
    assert shown is not None
    assert shown["score_ms"] == 2.5
    assert {c.judging_id for c in shown["cases"]} == {first.pk}

    approved = submission_approve(submission_id=held.pk, by=staff_user)
    assert approved.entry.review == Review.APPROVED
    assert approved.entry.ranked_score_ms == pytest.approx(0.9)
    assert board() == [("owner", pytest.approx(0.9)), ("other", 2.0)]
    shown = submission_ranked(submission=approved)
    assert shown is not None
    assert {c.judging_id for c in shown["cases"]} == {approved.judging_id}


def test_what_a_rejudge_covers(owner: Any, other_user: Any, staff_user: Any, local_pool: Any) -> None:
    mine, theirs = ranked(owner, 2.0), ranked(other_user, 2.5)
    benchmark = submit(owner, mode="benchmark")
    finish(benchmark.pk, Status.ACCEPTED, "ok")
    running = submit(owner)
    refused = submit(other_user)
    finish(refused.pk, Status.REJECTED, "over quota")
    report = submissions_rejudge(by=staff_user, reason="r", username="owner")
    assert report.queued == [mine.pk]  # the user's judged leaderboard submissions only
    report = submissions_rejudge(by=staff_user, reason="r", problem="vector-add")
    assert report.queued == [theirs.pk]
    assert report.skipped == {}  # mine is being rejudged already
    report = submissions_rejudge(by=staff_user, reason="r",
                                 submission_ids=[str(benchmark.pk), str(running.pk), str(refused.pk)])
    assert report.queued == [benchmark.pk]
    assert report.skipped == {str(running.pk): "it is being judged right now",
                              str(refused.pk): "it was refused when submitted and never judged"}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"reason": " ", "problem": "vector-add"}, "reason: say why"),
    ({"reason": "x" * 501, "problem": "vector-add"}, "reason: at most 500 characters"),
    ({"reason": "r"}, "Say what to rejudge"),
    ({"reason": "r", "username": "nobody"}, "user: there is no user 'nobody'"),
    ({"reason": "r", "problem": "nope"}, "problem: there is no problem 'nope'"),
    ({"reason": "r", "submission_ids": ["not-an-id"]}, "submission: not a submission id"),
])
def test_a_bad_rejudge_request_is_refused_naming_the_argument(staff_user: Any, local_pool: Any, kwargs: dict,
                                                              message: str) -> None:
    with pytest.raises(ApplicationError, match=message):
        submissions_rejudge(by=staff_user, **kwargs)


def test_a_rejudge_takes_nothing_of_the_owners_quota_and_never_expires(owner: Any, staff_user: Any,
                                                                       local_pool: Any, settings: Any) -> None:
    submission = ranked(owner, 2.0)
    submissions_rejudge(by=staff_user, reason="r", submission_ids=[str(submission.pk)])
    assert user_quota(user_id=owner.pk)["concurrent_used"] == 0
    settings.HIPJUDGE_QUEUE_TIMEOUT = 0
    assert submissions_sweep()["expired"] == 0
    submission.refresh_from_db()
    assert submission.status == Status.IN_QUEUE


def test_only_staff_cancel_a_rejudge(owner: Any, staff_user: Any, local_pool: Any) -> None:
    submission = ranked(owner, 2.0)
    submissions_rejudge(by=staff_user, reason="r", submission_ids=[str(submission.pk)])
    with pytest.raises(ConflictError, match="only staff can cancel"):
        submission_cancel(user=owner, submission_id=submission.pk)
    assert submission_cancel(user=staff_user, submission_id=submission.pk).status == Status.CANCELLED
    submission.refresh_from_db()
    assert submission.entry.ranked_score_ms == 2.0
    assert submission.entry.review == Review.NONE  # no verdict: kept


@pytest.mark.integration  # the PostgreSQL pass of scripts/test.sh runs `-m integration`: the positions' SQL
def test_a_rejudge_is_dispatched_after_every_queued_user_submission(owner: Any, other_user: Any, staff_user: Any,
                                                                    local_pool: Any) -> None:
    old = [ranked(owner, 2.0 + i) for i in range(3)]
    submissions_rejudge(by=staff_user, reason="r", submission_ids=[str(s.pk) for s in old])
    mine, theirs = submit(owner), submit(other_user)
    assert queue_order(pool_id=local_pool.pk) == [mine.pk, theirs.pk, *(s.pk for s in old)]
    assert [queue_position(submission=Submission.objects.get(pk=s.pk)) for s in (mine, theirs, *old)] == [
        1, 2, 3, 4, 5]
    assert queue_order(pool_id=local_pool.pk, limit=3) == [mine.pk, theirs.pk, old[0].pk]


@pytest.mark.integration  # and the dispatch order on PostgreSQL
def test_the_dispatch_order_never_lets_a_rejudge_delay_a_user_by_more_than_one_job(
        make_user: Any, staff_user: Any, local_pool: Any) -> None:
    """One VM, a problem-wide rejudge of 12 submissions, and users arriving at random moments:
    whenever the VM frees up with a user's submission waiting, the user's goes next. So a user's
    submission waits for at most the one rejudge already on the VM when it arrived."""
    rng = random.Random(12)
    users = [make_user(f"user{i}") for i in range(4)]
    for user in users * 3:
        ranked(user, rng.uniform(1.0, 3.0))
    local_pool.max_vms = 1
    local_pool.save()
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.WARM, base_url="http://127.0.0.1:1", token="t")
    submissions_rejudge(by=staff_user, reason="problem v2", problem="vector-add")
    started: list[Submission] = []
    arrivals: dict[Any, int] = {}  # user submission -> how many jobs had started when it arrived
    for _ in range(40):  # bounded: at most 40 jobs
        if rng.random() < 0.4:
            arrivals[submit(rng.choice(users)).pk] = len(started)
        job = submission_dispatch_next(pool=local_pool)
        if job is None:
            break
        started.append(job)
        finish(job.pk, Status.ACCEPTED if job.queue_class == QueueClass.USER else Status.WRONG_ANSWER, "done")
        vm.refresh_from_db()
        vm_release(vm=vm, job_ref=str(job.pk))
    kinds = [s.queue_class for s in started]
    assert kinds.count(QueueClass.REJUDGE) == 12
    assert set(arrivals) <= {s.pk for s in started}
    for submission_id, started_before in arrivals.items():
        position = next(i for i, s in enumerate(started) if s.pk == submission_id)
        between = kinds[started_before:position]
        # Only users' jobs may start between its arrival and its start: no rejudge overtakes it.
        assert QueueClass.REJUDGE not in between, (submission_id, kinds)


def test_a_rejudge_is_charged_to_the_platform_not_to_its_owner(owner: Any, other_user: Any, staff_user: Any,
                                                               local_pool: Any) -> None:
    ranked(other_user, 1.0)
    submission = ranked(owner, 2.0)  # no record: judged once, as its owner's
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.PROVISIONING)
    VMInstance.objects.filter(pk=vm.pk).update(created_at=T0, state_changed_at=T0)
    local_pool.hourly_rate = 3600
    local_pool.save()
    vm.refresh_from_db()
    ledger_accrue(vm_id=vm.pk, now=T0)
    move(vm, "BUSY", T0 + timedelta(seconds=10), job_ref=str(submission.pk))
    move(vm, "WARM", T0 + timedelta(seconds=20))
    submissions_rejudge(by=staff_user, reason="r", submission_ids=[str(submission.pk)])
    move(vm, "BUSY", T0 + timedelta(seconds=30), job_ref=str(submission.pk))
    move(vm, "WARM", T0 + timedelta(seconds=45))
    busy = LedgerEntry.objects.filter(phase=Phase.BUSY).order_by("period_start")
    assert [(e.seconds, e.user_id) for e in busy] == [(10, owner.pk), (15, None)]
    assert submission_cost(submission=submission) == 10  # USD: one second costs one at 3600/h

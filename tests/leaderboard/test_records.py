"""Records are confirmed before they rank (leaderboard.records): a result that would beat the pool's
best, or its owner's own by more than the noise, is judged a second time on a new secret seed
(another VM where the pool has one) and ranks only when both agree; the attacks on that rule, each
with what it gets."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils.module_loading import import_string

from core.exceptions import ConflictError
from fleets.models import VMInstance, VMState
from fleets.services import vm_acquire
from leaderboard.models import Review
from leaderboard.rejudge import submission_confirm_record
from leaderboard.selectors import submission_rank, submission_standing
from submissions.models import Judging, Status
from submissions.services import submission_cancel, submission_requeue_or_fail
from submissions.sweep import submissions_sweep
from tests.support.ranked import end, rank, ranked, submit

pytestmark = pytest.mark.usefixtures("problems_loaded")


@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 50


@pytest.fixture
def pool_best(make_user: Any, local_pool: Any) -> Any:
    """An honest result of 2.0 ms already on the pool (confirmed, as the pool's first)."""
    return ranked(make_user("honest"), 2.0)


def test_a_result_slower_than_the_pools_best_ranks_at_once_from_one_judging(owner: Any, pool_best: Any) -> None:
    submission = ranked(owner, 2.5)
    assert submission.judgings.count() == 1
    assert submission_rank(submission=submission) == 2


def test_a_record_ranks_with_the_slower_of_two_agreeing_judgings(owner: Any, pool_best: Any) -> None:
    submission = rank(submit(owner), 1.50, confirmed_at=1.52)
    assert submission.judgings.count() == 2
    assert submission.entry.review == Review.NONE
    assert submission.entry.ranked_score_ms == pytest.approx(1.52)
    assert submission_rank(submission=submission) == 1


def test_forged_once_the_record_waits_for_staff_with_both_results(owner: Any, pool_best: Any) -> None:
    """The ratchet of the old hold rule: 1.9x better than the pool's best, under its 2x hold, forged on
    one judging. The second judging, on inputs the first never saw, shows the kernel's real speed."""
    submission = rank(submit(owner), 2.0 / 1.9, confirmed_at=2.1)
    assert submission.entry.review == Review.HELD
    assert submission_rank(submission=submission) is None
    reason = submission_standing(submission=submission).reason
    assert "its record was not confirmed" in reason
    assert "1.05263 ms" in reason
    assert "2.1 ms" in reason
    assert submission.entry.ranked_score_ms == pytest.approx(2.1)  # what staff would approve: the slower one


def test_a_kernel_that_fails_the_second_judging_does_not_rank(owner: Any, pool_best: Any) -> None:
    submission = rank(submit(owner), 1.0)
    assert submission_rank(submission=submission) == 1
    first = end(submit(owner), fake_result(0.5))
    assert submission_confirm_record(submission_id=first.pk, judging_id=first.judging_id)
    first = end(first, {"status": "WRONG_ANSWER", "reason": "ranked pass: ranked case 'n=3000017': wrong result"})
    assert first.entry.ranked_score_ms is None
    assert submission_standing(submission=first).state == "not_ranked"
    assert submission_rank(submission=submission) == 1  # the owner's earlier result still stands


def test_a_confirmation_the_platform_failed_waits_for_staff_with_the_first_result(owner: Any, pool_best: Any) -> None:
    submission = end(submit(owner), fake_result(1.0))
    assert submission_confirm_record(submission_id=submission.pk, judging_id=submission.judging_id)
    submission = end(submission, {"status": "ERROR", "reason": "The agent could not be reached."})
    assert submission.entry.review == Review.HELD
    assert submission.entry.ranked_score_ms == pytest.approx(1.0)
    assert "awaits a confirmation that ended without a verdict" in submission.entry.review_reason


def test_beating_ones_own_best_by_more_than_the_noise_is_a_record_within_it_is_not(
        owner: Any, make_user: Any, local_pool: Any) -> None:
    ranked(make_user("fastest"), 1.0)
    ranked(owner, 3.0)
    within = end(submit(owner), fake_result(2.95))  # intervals of +-2 %: overlaps 3.0's
    assert within.judgings.count() == 1
    assert within.entry.ranked_score_ms == pytest.approx(2.95)
    beyond = end(submit(owner), fake_result(2.0))
    assert beyond.entry.ranked_score_ms is None
    assert "beats its owner's best" in beyond.entry.ranked_reason


def test_its_owner_cannot_cancel_the_confirmation_to_keep_the_first_result(owner: Any, pool_best: Any) -> None:
    submission = end(submit(owner), fake_result(1.0))
    assert submission_confirm_record(submission_id=submission.pk, judging_id=submission.judging_id)
    with pytest.raises(ConflictError, match="only staff can cancel"):
        submission_cancel(user=owner, submission_id=submission.pk)


def test_a_record_is_confirmed_only_once_its_vm_was_given_back_and_the_sweep_queues_it(
        owner: Any, pool_best: Any, local_pool: Any, monkeypatch: Any) -> None:
    """Until the VM is released its time is booked to whoever the submission's class names: the
    second judging waits, so the first stays the owner's to pay."""
    queued: list[tuple[str, ...]] = []
    monkeypatch.setattr("leaderboard.records.enqueue", lambda func, *args, **kw: queued.append((func, *args)))
    submission = end(submit(owner), fake_result(1.0))
    VMInstance.objects.create(pool=local_pool, state=VMState.BUSY, job_ref=str(submission.pk))
    assert not submission_confirm_record(submission_id=submission.pk, judging_id=submission.judging_id)
    VMInstance.objects.filter(job_ref=str(submission.pk)).update(state=VMState.WARM, job_ref="")
    assert submissions_sweep()["records"] == 1
    assert queued == [("leaderboard.tasks.confirm_record", str(submission.pk), str(submission.judging_id))]
    assert submission_confirm_record(submission_id=submission.pk, judging_id=submission.judging_id)
    assert submissions_sweep()["records"] == 0


def test_the_queued_confirmation_judges_the_record_again(owner: Any, pool_best: Any) -> None:
    """The queue stores a task by its dotted path: the one records_confirm_soon queues runs."""
    submission = end(submit(owner), fake_result(1.0))
    assert import_string("leaderboard.tasks.confirm_record")(str(submission.pk), str(submission.judging_id))
    assert Judging.objects.filter(submission=submission, confirms_id=submission.judging_id).exists()


def test_the_second_judging_prefers_another_warm_vm(local_pool: Any) -> None:
    first = VMInstance.objects.create(pool=local_pool, state=VMState.WARM)
    other = VMInstance.objects.create(pool=local_pool, state=VMState.WARM)
    VMInstance.objects.filter(pk=first.pk).update(last_used_at="2026-12-02T12:00:00Z")  # the warmest
    acquired = vm_acquire(pool=local_pool, job_ref="x", avoid_vm=first.pk)
    assert acquired is not None
    assert acquired[0].pk == other.pk
    alone = vm_acquire(pool=local_pool, job_ref="y", avoid_vm=other.pk)  # only the avoided one is left warm
    assert alone is not None
    assert alone[0].pk == first.pk


def test_a_lost_vm_requeues_a_leaderboard_job_with_a_new_secret_seed(owner: Any, local_pool: Any) -> None:
    """The attempt that died may have run the kernel on its inputs: the next one must not reuse them."""
    submission = submit(owner)
    seed = Judging.objects.get(submission=submission).ranked_seed
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.BUSY, job_ref=str(submission.pk))
    type(submission).objects.filter(pk=submission.pk).update(status=Status.RANKING, vm=vm, attempt=1)
    assert submission_requeue_or_fail(submission_id=submission.pk, reason="The VM was lost.")
    again = Judging.objects.get(submission=submission).ranked_seed
    assert again is not None
    assert again != seed


def fake_result(mean_ms: float) -> dict[str, Any]:
    from tests.support import fake_agent
    from tests.support.ranked import HOST_CASE

    return fake_agent.leaderboard_script([(HOST_CASE, mean_ms, mean_ms)])[-1][1]

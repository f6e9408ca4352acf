"""The queue: fair across users, positions visible, one VM per submission, warm VMs reused."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fleets.models import VMInstance, VMState
from submissions.dispatch import submission_dispatch_next
from submissions.models import Status, Submission, VMStartKind
from submissions.selectors import queue_order, queue_position
from submissions.services import submission_create
from tests.conftest import read_source

pytestmark = pytest.mark.usefixtures("problems_loaded")


def submit(user: Any) -> Submission:
    return submission_create(user=user, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))


@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10


def test_the_queue_takes_turns_between_users(owner: Any, other_user: Any, local_pool: Any) -> None:
    a1, a2, a3 = submit(owner), submit(owner), submit(owner)
    b1 = submit(other_user)
    assert queue_order(pool_id=local_pool.pk) == [a1.pk, b1.pk, a2.pk, a3.pk]


def test_positions_show_in_the_api(owner: Any, other_user: Any, api_as: Any, local_pool: Any) -> None:
    a1, a2 = submit(owner), submit(owner)
    b1 = submit(other_user)
    assert api_as(other_user).get(f"/api/v1/submissions/{b1.pk}").json()["queue_position"] == 2
    assert api_as(owner).get(f"/api/v1/submissions/{a1.pk}").json()["queue_position"] == 1
    assert api_as(owner).get(f"/api/v1/submissions/{a2.pk}").json()["queue_position"] == 3
    listed = api_as(owner).get("/api/v1/submissions").json()["results"]
    assert sorted(s["queue_position"] for s in listed) == [1, 3]


def test_dispatch_starts_a_vm_then_waits_at_max_vms(owner: Any, local_pool: Any) -> None:
    local_pool.max_vms = 1
    local_pool.save()
    first, second = submit(owner), submit(owner)
    dispatched = submission_dispatch_next(pool=local_pool)
    assert dispatched is not None
    assert dispatched.pk == first.pk
    first.refresh_from_db()
    assert first.status == Status.PROVISIONING
    assert first.vm_start == VMStartKind.COLD_START
    assert first.attempt == 1
    vm = VMInstance.objects.get()
    assert vm.state == VMState.PROVISIONING
    assert vm.job_ref == str(first.pk)
    assert vm.token
    assert submission_dispatch_next(pool=local_pool) is None
    second.refresh_from_db()
    assert second.status == Status.IN_QUEUE
    assert second.vm is None


def test_a_warm_vm_is_reused(owner: Any, local_pool: Any) -> None:
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.WARM, base_url="http://127.0.0.1:1", token="t")
    submission = submit(owner)
    submission_dispatch_next(pool=local_pool)
    submission.refresh_from_db()
    vm.refresh_from_db()
    assert submission.vm == vm
    assert submission.vm_start == VMStartKind.WARM_REUSE
    assert submission.status == Status.COMPILING
    assert vm.state == VMState.BUSY
    assert vm.job_ref == str(submission.pk)
    assert vm.jobs_started == 1
    types = list(submission.events.values_list("type", flat=True))
    assert types == ["STATUS", "VM", "STATUS"]
    assert submission.events.get(type="VM").payload["vm_start"] == "WARM_REUSE"


def test_a_cancelled_submission_is_never_dispatched(owner: Any, api_as: Any, local_pool: Any) -> None:
    submission = submit(owner)
    api_as(owner).post(f"/api/v1/submissions/{submission.pk}/cancel")
    assert submission_dispatch_next(pool=local_pool) is None
    assert not VMInstance.objects.exists()


def test_every_queued_position_agrees_with_the_dispatch_order(make_user: Any, local_pool: Any) -> None:
    """queue_position counts in SQL what queue_order ranks: same answer for every queued submission,
    with several per user, one taken out of the middle of the queue and ties on created_at."""
    rng = random.Random(7)
    users = [make_user(f"user{i}") for i in range(4)]
    made = [submit(rng.choice(users)) for _ in range(14)]
    tied = Submission.objects.filter(pk__in=[made[3].pk, made[4].pk, made[9].pk])
    tied.update(created_at=Submission.objects.get(pk=made[3].pk).created_at)
    gone = made[5]
    Submission.objects.filter(pk=gone.pk).update(status=Status.CANCELLED)
    order = queue_order(pool_id=local_pool.pk)
    assert len(order) == 13
    assert gone.pk not in order
    for place, submission_id in enumerate(order, start=1):
        assert queue_position(submission=Submission.objects.get(pk=submission_id)) == place
    # Loaded while it was queued, asked after it left the queue: no position.
    assert queue_position(submission=gone) is None

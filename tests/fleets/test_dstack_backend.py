"""The dstack backend against a real local dstack server: a VM's run ends with no capacity and its
submissions end REJECTED with the reason; the provisioning time limit (background processing off)
stops the run; the reconcile job stops real orphan runs and closes rows whose run is gone (on the
frozen server, where dstack ends no run of its own accord)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from fleets.backends import CapacityError
from fleets.dstack import find_run, get_run, submit_vm_run, vm_run_name
from fleets.dstack_pools.backend import DstackBackend
from fleets.dstack_pools.config import dstack_client, vm_run_settings
from fleets.dstack_pools.services import dstack_fleet_apply
from fleets.models import VMInstance, VMState
from fleets.services import vm_provision, vm_reap_idle, vms_reconcile
from fleets.tasks import reconcile
from submissions.dispatch import submission_dispatch_next
from submissions.models import Status, Submission, VMStartKind
from submissions.runner import submission_run
from submissions.services import submission_create
from tests.conftest import read_source
from tests.fleets.dstack.local_server import LocalDstack

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("problems_loaded", "credit", "paid_access")]
NO_CAPACITY = "No MI300X capacity on amddevcloud right now: dstack found no offer for the VM. Try again later."


@pytest.fixture
def pool(on_dstack: LocalDstack, make_dstack_pool: Any) -> Any:
    pool = make_dstack_pool(max_vms=1)
    dstack_fleet_apply(pool=pool, require_backends=False)
    return pool


@pytest.fixture
def frozen_pool(on_dstack_frozen: LocalDstack, make_dstack_pool: Any) -> Any:
    pool = make_dstack_pool(max_vms=1, provision_timeout_s=3)
    dstack_fleet_apply(pool=pool, require_backends=False)
    return pool


def submit(user: Any, pool: Any) -> Submission:
    return submission_create(user=user, problem="vector-add", language="hip", source=read_source("hip.hip"),
                             pool_name=pool.name)


def run_status(vm: VMInstance) -> tuple[str, str | None]:
    run = find_run(dstack_client(), vm_run_name(vm.pk))
    assert run is not None
    return run.status.value, run.termination_reason


def test_no_capacity_fails_the_vm_and_rejects_its_waiting_submissions(pool: Any, owner: Any,
                                                                      other_user: Any) -> None:
    first, waiting = submit(owner, pool), submit(other_user, pool)
    assert submission_dispatch_next(pool=pool) == first
    assert submission_dispatch_next(pool=pool) is None  # max_vms=1: the second waits in the queue
    first.refresh_from_db()
    assert first.vm_start == VMStartKind.COLD_START
    assert first.status == Status.PROVISIONING
    submission_run(submission_id=str(first.pk))  # submits a real run; ~15 s later dstack says no capacity

    vm = VMInstance.objects.get(pool=pool)
    assert vm.state == VMState.FAILED
    assert vm.state_reason == NO_CAPACITY
    assert vm.stopped_at
    run = find_run(dstack_client(), vm_run_name(vm.pk))
    assert run is not None
    assert run.latest_job_submission is not None
    assert run.latest_job_submission.termination_reason == "failed_to_start_due_to_no_capacity"
    for submission in (first, waiting):
        submission.refresh_from_db()
        assert (submission.status, submission.status_reason) == (Status.REJECTED, NO_CAPACITY)
    assert first.events.filter(type="RESULT", payload__status=Status.REJECTED).exists()


def test_no_capacity_requeues_when_another_vm_of_the_pool_can_serve(pool: Any, owner: Any) -> None:
    pool.max_vms = 2
    pool.save()
    submission = submit(owner, pool)
    submission_dispatch_next(pool=pool)
    VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="someone-else")
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.IN_QUEUE
    assert submission.vm is None
    assert submission.events.filter(type="REQUEUED", payload__reason=NO_CAPACITY).exists()


def test_the_provisioning_time_limit_fails_the_vm_and_stops_its_run(frozen_pool: Any, owner: Any) -> None:
    submission = submit(owner, frozen_pool)
    submission_dispatch_next(pool=frozen_pool)
    submission_run(submission_id=str(submission.pk))  # the run stays `submitted`: the 3 s limit ends it

    vm = VMInstance.objects.get(pool=frozen_pool)
    assert vm.state == VMState.FAILED
    assert vm.state_reason == (
        "No MI300X VM became ready within 3 s, most likely no MI300X capacity on amddevcloud right now (dstack "
        "last said: The VM is queued in dstack, waiting for an instance). Its dstack run was stopped; try again later.")
    assert run_status(vm) == ("terminating", "stopped_by_user")  # stopped for real (the server is frozen)
    submission.refresh_from_db()
    assert (submission.status, submission.status_reason) == (Status.REJECTED, vm.state_reason)


def test_the_reaper_stops_a_vm_stuck_provisioning_whose_worker_died(frozen_pool: Any, owner: Any,
                                                                    django_capture_on_commit_callbacks: Any) -> None:
    submission = submit(owner, frozen_pool)
    submission_dispatch_next(pool=frozen_pool)
    vm = VMInstance.objects.get(pool=frozen_pool)
    submit_vm_run(dstack_client(), vm_run_settings(vm))  # what the dead worker had done
    VMInstance.objects.filter(pk=vm.pk).update(created_at=timezone.now() - timedelta(seconds=60))
    with django_capture_on_commit_callbacks(execute=True):
        assert vm_reap_idle() == 1
    vm.refresh_from_db()
    assert vm.state == VMState.FAILED
    assert vm.state_reason.startswith("Provisioning took longer than 3 s")
    assert run_status(vm) == ("terminating", "stopped_by_user")
    submission.refresh_from_db()
    assert (submission.status, submission.status_reason) == (Status.REJECTED, vm.state_reason)


def test_provisioning_adopts_the_run_a_crashed_worker_submitted(frozen_pool: Any) -> None:
    vm = VMInstance.objects.create(pool=frozen_pool, state=VMState.PROVISIONING, token="t" * 20)
    first = submit_vm_run(dstack_client(), vm_run_settings(vm))
    with pytest.raises(Exception, match="became ready within 3 s"):
        vm_provision(vm=vm)
    run = find_run(dstack_client(), vm_run_name(vm.pk))
    assert run is not None
    assert str(run.id) == first.id  # no second run was submitted


def test_a_vm_resumed_past_its_limit_submits_nothing(frozen_pool: Any) -> None:
    vm = VMInstance.objects.create(pool=frozen_pool, state=VMState.PROVISIONING, token="t" * 20)
    VMInstance.objects.filter(pk=vm.pk).update(created_at=timezone.now() - timedelta(seconds=60))
    vm.refresh_from_db()
    with pytest.raises(CapacityError, match="became ready within 3 s"):
        DstackBackend().provision(vm)
    assert find_run(dstack_client(), vm_run_name(vm.pk)) is None


def test_reconcile_stops_a_real_orphan_run(frozen_pool: Any) -> None:
    # The frozen server: with background processing on, dstack itself ends the kept run (no offer)
    # whenever it gets there first, which on a loaded machine it sometimes does.
    ghost = VMInstance(id=uuid.uuid4(), pool=frozen_pool, token="ghost-token")  # no row owns its run
    orphan = submit_vm_run(dstack_client(), vm_run_settings(ghost))
    live = VMInstance.objects.create(pool=frozen_pool, state=VMState.PROVISIONING, token="live-token")
    kept = submit_vm_run(dstack_client(), vm_run_settings(live))
    result = vms_reconcile()
    assert result["orphans_killed"] == 1
    assert get_run(dstack_client(), orphan.id).status.value in ("terminating", "terminated")
    assert get_run(dstack_client(), kept.id).status.value not in ("terminating", "terminated")


def test_reconcile_stops_a_stray_run_on_a_fleet_no_pool_owns(pool: Any, make_dstack_pool: Any) -> None:
    other = make_dstack_pool()
    dstack_fleet_apply(pool=other, require_backends=False)
    ghost = VMInstance(id=uuid.uuid4(), pool=other, token="ghost-token")
    settings = vm_run_settings(ghost)
    other.delete()  # the pool row is gone, its dstack fleet and the run are not
    stray = submit_vm_run(dstack_client(), settings)
    # >= 1: runs of earlier tests whose pool rows were rolled back are strays too (one server per session).
    assert reconcile()["stray_runs_stopped"] >= 1
    assert get_run(dstack_client(), stray.id).status.value in ("terminating", "terminated")


def test_reconcile_closes_rows_whose_run_is_gone_or_ending(frozen_pool: Any,
                                                           django_capture_on_commit_callbacks: Any) -> None:
    gone = VMInstance.objects.create(pool=frozen_pool, state=VMState.WARM, handle="hj-vm-deadbeef")
    ending = VMInstance.objects.create(pool=frozen_pool, state=VMState.BUSY, job_ref="job-1", token="t" * 20)
    run = submit_vm_run(dstack_client(), vm_run_settings(ending))
    VMInstance.objects.filter(pk=ending.pk).update(handle=run.name, agent_info={"dstack": {"run_id": run.id}})
    DstackBackend().stop(ending)
    with django_capture_on_commit_callbacks(execute=True):
        assert vms_reconcile()["vms_failed"] == 2
    gone.refresh_from_db()
    ending.refresh_from_db()
    assert (gone.state, gone.state_reason) == (VMState.FAILED, "Its dstack run no longer exists.")
    assert (ending.state, ending.state_reason) == (VMState.FAILED, "The VM is being stopped; waiting for dstack.")

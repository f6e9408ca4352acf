"""VM lifecycle in fleets.services with a stand-in backend: acquire, release, reap, reconcile, fail."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from fleets.backends import Orphan, ProvisionError
from fleets.models import VMInstance, VMState
from fleets.policy import AGENT_SILENCE_FLOOR_S, agent_silence_limit_s
from fleets.services import vm_acquire, vm_fail, vm_provision, vm_reap_idle, vm_release, vms_reconcile
from fleets.signals import vm_lost, vm_state_changed
from tests.fleets.conftest import StandInBackend
from tests.support import fake_agent


@pytest.fixture
def pool(local_pool: Any) -> Any:
    local_pool.max_vms = 2
    local_pool.idle_timeout_s = 60
    local_pool.save()
    return local_pool


def test_acquire_provisions_up_to_max_vms_then_says_no(pool: Any, backend: StandInBackend) -> None:
    first, second = vm_acquire(pool=pool, job_ref="job-1"), vm_acquire(pool=pool, job_ref="job-2")
    assert first
    assert first[1]
    assert second
    assert second[1]
    assert vm_acquire(pool=pool, job_ref="job-3") is None
    assert VMInstance.objects.filter(state=VMState.PROVISIONING).count() == 2


def test_a_provisioned_vm_serves_its_job_then_becomes_warm_and_is_reused(pool: Any, backend: StandInBackend,
                                                                         django_capture_on_commit_callbacks: Any
                                                                         ) -> None:
    changes: list[tuple] = []

    def record(sender: Any, **kwargs: Any) -> None:
        changes.append((kwargs["old"], kwargs["new"]))

    vm_state_changed.connect(record)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            vm, cold = vm_acquire(pool=pool, job_ref="job-1") or (None, None)
            vm = vm_provision(vm=vm)
            assert vm.state == VMState.BUSY
            assert vm.base_url
            assert vm.pid == 4242
            assert vm.ready_at
            assert not vm_release(vm=vm, job_ref="someone-else")  # only its own job releases it
            assert vm_release(vm=vm, job_ref="job-1")
            again, cold_again = vm_acquire(pool=pool, job_ref="job-2") or (None, None)
    finally:
        vm_state_changed.disconnect(record)
    assert cold
    assert not cold_again
    assert again.pk == vm.pk
    assert again.jobs_started == 2
    assert changes == [(None, "PROVISIONING"), ("PROVISIONING", "BUSY"), ("BUSY", "WARM"), ("WARM", "BUSY")]


def test_a_failed_provisioning_leaves_a_failed_vm_with_the_reason(pool: Any, backend: StandInBackend) -> None:
    backend.fail_with = "no capacity"
    vm, _ = vm_acquire(pool=pool, job_ref="job-1") or (None, None)
    with pytest.raises(ProvisionError):
        vm_provision(vm=vm)
    vm.refresh_from_db()
    assert vm.state == VMState.FAILED
    assert vm.state_reason == "no capacity"
    assert vm_acquire(pool=pool, job_ref="job-2") is not None  # a failed VM frees its slot


def test_two_runners_that_start_the_same_vm_keep_it_and_one_that_was_failed_stops_it(
        pool: Any, backend: StandInBackend) -> None:
    """Two runners may start one VM (the first one's lease lapsed while the database was away): the
    backend adopts the same process for both, and the slower one must not stop the VM the faster
    one already handed to the job. A start-up that the reaper failed meanwhile is stopped."""
    vm, _ = vm_acquire(pool=pool, job_ref="job-1") or (None, None)
    stale = VMInstance.objects.get(pk=vm.pk)
    vm_provision(vm=vm)
    assert vm_provision(vm=stale).state == VMState.BUSY
    assert not backend.stopped  # the slower runner

    other, _ = vm_acquire(pool=pool, job_ref="job-2") or (None, None)
    stale = VMInstance.objects.get(pk=other.pk)
    vm_fail(vm=other, reason="Provisioning took too long.")
    backend.stopped.clear()
    with pytest.raises(ProvisionError, match="failed while it started"):
        vm_provision(vm=stale)
    assert backend.stopped == [str(other.pk)]


def test_the_reaper_stops_vms_idle_past_the_timeout_only(pool: Any, backend: StandInBackend) -> None:
    now = timezone.now()
    idle = VMInstance.objects.create(pool=pool, state=VMState.WARM, last_used_at=now - timedelta(seconds=61))
    fresh = VMInstance.objects.create(pool=pool, state=VMState.WARM, last_used_at=now - timedelta(seconds=30))
    busy = VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="j",
                                     last_used_at=now - timedelta(hours=1))
    assert vm_reap_idle() == 1
    states = {vm.pk: vm.state for vm in VMInstance.objects.all()}
    assert states == {idle.pk: VMState.STOPPED, fresh.pk: VMState.WARM, busy.pk: VMState.BUSY}
    assert backend.stopped == [str(idle.pk)]


def test_the_reaper_fails_a_vm_stuck_provisioning(pool: Any, backend: StandInBackend) -> None:
    vm = VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, job_ref="j")
    VMInstance.objects.filter(pk=vm.pk).update(created_at=timezone.now() - timedelta(seconds=pool.provision_timeout_s))
    assert vm_reap_idle() == 1
    vm.refresh_from_db()
    assert vm.state == VMState.FAILED
    assert "Provisioning took longer" in vm.state_reason


def test_reconcile_kills_orphans_and_fails_rows_whose_agent_died(pool: Any, backend: StandInBackend,
                                                                 django_capture_on_commit_callbacks: Any) -> None:
    lost: list[tuple] = []

    def record(sender: Any, **kwargs: Any) -> None:
        lost.append((kwargs["job_ref"], kwargs["reason"]))

    dead = VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="job-9", pid=1)
    alive = VMInstance.objects.create(pool=pool, state=VMState.WARM, pid=2)
    starting = VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, job_ref="job-8")
    backend.alive = {str(alive.pk)}
    backend.orphans = [Orphan(handle="777", description="agent pid 777")]
    vm_lost.connect(record)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert vms_reconcile() == {"orphans_killed": 1, "vms_failed": 1}
    finally:
        vm_lost.disconnect(record)
    assert backend.killed == ["777"]
    assert {vm.pk: vm.state for vm in VMInstance.objects.all()} == {
        dead.pk: VMState.FAILED, alive.pk: VMState.WARM, starting.pk: VMState.PROVISIONING}
    assert lost == [("job-9", "The agent process is gone.")]


def test_failing_twice_is_a_no_op(pool: Any, backend: StandInBackend) -> None:
    vm = VMInstance.objects.create(pool=pool, state=VMState.WARM)
    assert vm_fail(vm=vm, reason="first")
    assert not vm_fail(vm=vm, reason="second")
    vm.refresh_from_db()
    assert vm.state_reason == "first"


def test_the_pools_api_lists_enabled_pools(pool: Any, owner: Any, api_as: Any) -> None:
    VMInstance.objects.create(pool=pool, state=VMState.WARM)
    [listed] = api_as(owner).get("/api/v1/pools").json()
    assert listed["name"] == "local"
    assert listed["languages"] == ["cpp"]
    assert listed["warm_vms"] == 1


def test_reconcile_keeps_each_warm_agent_hearing_from_its_platform(pool: Any, backend: StandInBackend) -> None:
    """An agent that hears nothing for its silence limit stops itself (agent.self_stop): the reconcile
    asks every warm agent for its health, so only a platform that is gone leaves one silent."""
    with fake_agent.running(fake_agent.FakeAgent()) as agent:
        warm = VMInstance.objects.create(pool=pool, state=VMState.WARM, pid=2, base_url=agent.url,
                                         token=fake_agent.TOKEN)
        busy = VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="j", pid=3, base_url=agent.url,
                                         token=fake_agent.TOKEN)
        gone = VMInstance.objects.create(pool=pool, state=VMState.WARM, pid=4, base_url="http://127.0.0.1:1")
        backend.alive = {str(warm.pk), str(busy.pk), str(gone.pk)}
        assert vms_reconcile() == {"orphans_killed": 0, "vms_failed": 0}  # an unanswered keepalive fails nothing
    assert agent.calls == [("GET", "/v1/health")]  # the warm one; the busy one hears from its runner
    assert VMInstance.objects.get(pk=gone.pk).state == VMState.WARM


def test_an_agent_is_told_to_stop_after_twice_the_idle_timeout_of_silence_at_least_five_minutes(
        pool: Any, settings: Any) -> None:
    pool.idle_timeout_s = 900
    assert agent_silence_limit_s(pool=pool) == 1800
    pool.idle_timeout_s = 60
    assert agent_silence_limit_s(pool=pool) == AGENT_SILENCE_FLOOR_S == 300
    settings.HIPJUDGE_AGENT_SILENCE_LIMIT = 7
    assert agent_silence_limit_s(pool=pool) == 7

"""The pool policies (fleets/policy.py) through the services that act on them: the reaper's idle
timeout and floors, the dispatcher's scale-out, pre-warm hours and the credit's tightening. Time is
set through core.clock, the seam the simulator uses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from billing.services import credit_grant_create
from core.clock import clock_use
from fleets.models import Pool, PoolPolicy, VMInstance, VMJob, VMState, validate_prewarm_hours
from fleets.policy import Scale, idle_timeout_s, pool_snapshot, reap_due_at, reap_plan, scale_decision
from fleets.services import pools_credit_used_set, vm_acquire, vm_prestarted_provision, vm_reap_due_at, vm_reap_idle
from tests.fleets.conftest import StandInBackend

T0 = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Iterator[Clock]:
    at = Clock()
    with clock_use(at):
        yield at


@pytest.fixture
def pool(db: Any) -> Pool:
    return Pool.objects.create(name="gpu", backend="sim", device="hip", max_vms=3, idle_timeout_s=600,
                                hourly_rate=Decimal("1.99"), policy=PoolPolicy.ADAPTIVE,
                                config={"agent": "none", "cold_start_estimate_s": 300})


def warm_vm(pool: Pool, *, idle_since: datetime, cold_start_s: float = 300) -> VMInstance:
    created = idle_since - timedelta(seconds=cold_start_s + 60)
    return VMInstance.objects.create(pool=pool, state=VMState.WARM, created_at=created, state_changed_at=idle_since,
                                     ready_at=created + timedelta(seconds=cold_start_s), last_used_at=idle_since)


def jobs(pool: Pool, vm: VMInstance, *, count: int, ending: datetime, length_s: float = 30) -> None:
    """`count` finished warm jobs, evenly spread over the hour before `ending`."""
    for i in range(count):
        start = ending - timedelta(seconds=3600 * (i + 1) / (count + 1))
        VMJob.objects.create(pool=pool, vm=vm, job_ref=f"j{i}", started_at=start,
                             ended_at=start + timedelta(seconds=length_s))


def test_the_default_policy_is_adaptive_for_dstack_and_simulated_pools_and_fixed_for_local_ones(db: Any) -> None:
    kinds = {backend: Pool(name=backend, backend=backend).policy_in_effect for backend in ("dstack", "sim", "local")}
    assert kinds == {"dstack": PoolPolicy.ADAPTIVE, "sim": PoolPolicy.ADAPTIVE, "local": PoolPolicy.FIXED}
    assert Pool(name="x", backend="dstack", policy=PoolPolicy.FIXED).policy_in_effect == PoolPolicy.FIXED


def test_the_cold_start_is_measured_as_the_median_of_the_pools_recent_starts(pool: Pool, clock: Clock) -> None:
    assert pool_snapshot(pool=pool, now=clock.now).cold_start_s == 300  # nothing measured: the pool's estimate
    for seconds in (200, 400, 410):
        warm_vm(pool, idle_since=clock.now - timedelta(hours=1), cold_start_s=seconds)
    assert pool_snapshot(pool=pool, now=clock.now).cold_start_s == 400


@pytest.mark.parametrize(("jobs_last_hour", "expected"), [
    (0, 75.0),  # nothing is coming: a quarter of a cold start (C/4)
    (4, 75.0),  # the next job in g = 900 s >= 2C: C/4
    (8, 300.0),  # g = 450 s = 1.5C: half way from 4C to C/4, geometrically
    (12, 1200.0),  # g = 300 s = C: a job is likely before a cold start would pay back: 4C
    (48, 1200.0),
])
def test_the_adaptive_idle_timeout_is_the_ski_rental_break_even_shifted_by_the_arrival_rate(
        pool: Pool, clock: Clock, jobs_last_hour: int, expected: float) -> None:
    vm = warm_vm(pool, idle_since=clock.now)
    jobs(pool, vm, count=jobs_last_hour, ending=clock.now)
    snapshot = pool_snapshot(pool=pool, now=clock.now)
    assert idle_timeout_s(pool=pool, snapshot=snapshot, serving=1) == pytest.approx(expected)


def test_the_rate_decides_how_many_idle_vms_stay(pool: Pool, clock: Clock, backend: StandInBackend) -> None:
    vms = [warm_vm(pool, idle_since=clock.now - timedelta(seconds=400 + i)) for i in range(3)]
    jobs(pool, vms[0], count=12, ending=clock.now)  # one VM's worth: g = 300 s = C for one, 600 s for two
    assert vm_reap_idle() == 2
    assert VMInstance.objects.get(state=VMState.WARM).pk == vms[0].pk  # the most recently used stays


def test_the_reaper_stops_an_adaptive_vm_after_its_timeout_and_says_why(
        pool: Pool, clock: Clock, backend: StandInBackend) -> None:
    vm = warm_vm(pool, idle_since=clock.now)  # no arrivals: C/4 = 75 s
    clock.advance(74)
    assert vm_reap_idle() == 0
    clock.advance(1)
    assert vm_reap_idle() == 1
    vm.refresh_from_db()
    assert vm.state == VMState.STOPPED and "Idle for more than 75 s (adaptive: cold start ~300 s" in vm.state_reason


def test_a_fixed_pool_keeps_its_configured_idle_timeout(pool: Pool, clock: Clock, backend: StandInBackend) -> None:
    pool.policy = PoolPolicy.FIXED
    pool.save()
    warm_vm(pool, idle_since=clock.now)
    clock.advance(599)
    assert vm_reap_idle() == 0
    clock.advance(1)
    assert vm_reap_idle() == 1


def test_from_80_percent_of_the_credit_the_idle_timeout_halves(pool: Pool, clock: Clock) -> None:
    vm = warm_vm(pool, idle_since=clock.now)
    jobs(pool, vm, count=12, ending=clock.now)
    pools_credit_used_set(used_pct=Decimal("79.9"), pool_ids=[pool.pk])
    pool.refresh_from_db()
    assert idle_timeout_s(pool=pool, snapshot=pool_snapshot(pool=pool, now=clock.now), serving=1) == 1200
    pools_credit_used_set(used_pct=Decimal("80.2"), pool_ids=[pool.pk])
    pool.refresh_from_db()
    assert pool.credit_used_pct == 80
    assert idle_timeout_s(pool=pool, snapshot=pool_snapshot(pool=pool, now=clock.now), serving=1) == 600


def test_from_95_percent_the_pool_keeps_one_vm_and_starts_no_other(
        pool: Pool, clock: Clock, backend: StandInBackend) -> None:
    first, second = warm_vm(pool, idle_since=clock.now - timedelta(seconds=5)), warm_vm(pool, idle_since=clock.now)
    pools_credit_used_set(used_pct=Decimal(96), pool_ids=[pool.pk])
    assert vm_reap_idle() == 1  # the longer idle one stops at once, whatever its timeout
    assert [vm.state for vm in VMInstance.objects.filter(pk__in=[first.pk, second.pk]).order_by("created_at")] == [
        VMState.STOPPED, VMState.WARM]
    assert "96.00 % used" in VMInstance.objects.get(pk=first.pk).state_reason
    VMInstance.objects.filter(pk=second.pk).update(state=VMState.BUSY, job_ref="j")
    assert vm_acquire(pool=Pool.objects.get(pk=pool.pk), job_ref="another", queued=20) is None
    assert VMInstance.objects.filter(state=VMState.PROVISIONING).count() == 0


def busy_vm(pool: Pool, *, since: datetime) -> VMInstance:
    vm = warm_vm(pool, idle_since=since)
    VMInstance.objects.filter(pk=vm.pk).update(state=VMState.BUSY, job_ref="running")
    vm.refresh_from_db()
    return vm


def test_with_no_vm_the_job_gets_a_cold_start_of_its_own(pool: Pool, clock: Clock) -> None:
    assert scale_decision(pool=pool, live=[], queued=1, now=clock.now) == Scale.BIND


def test_a_job_waits_for_a_busy_vm_when_that_is_sooner_than_a_cold_start(pool: Pool, clock: Clock) -> None:
    vm = busy_vm(pool, since=clock.now - timedelta(seconds=10))
    jobs(pool, vm, count=5, ending=clock.now, length_s=60)  # mean job 60 s: the VM frees in ~50 s
    assert scale_decision(pool=pool, live=[vm], queued=1, now=clock.now) == Scale.WAIT
    assert vm_acquire(pool=pool, job_ref="waits", queued=1) is None
    assert VMInstance.objects.filter(state=VMState.PROVISIONING).count() == 0


def test_the_pool_scales_out_once_the_expected_wait_exceeds_a_cold_start(
        pool: Pool, clock: Clock, queued_tasks: list[tuple], django_capture_on_commit_callbacks: Any) -> None:
    vm = busy_vm(pool, since=clock.now - timedelta(seconds=10))
    jobs(pool, vm, count=5, ending=clock.now, length_s=60)
    # Six queued jobs of 60 s behind one busy VM: the newest would wait ~350 s > C = 300 s.
    assert scale_decision(pool=pool, live=[vm], queued=5, now=clock.now) == Scale.WAIT
    assert scale_decision(pool=pool, live=[vm], queued=6, now=clock.now) == Scale.PRESTART
    with django_capture_on_commit_callbacks(execute=True):
        assert vm_acquire(pool=pool, job_ref="head", queued=6) is None  # the head waits for whichever frees first
    started = VMInstance.objects.get(state=VMState.PROVISIONING)
    assert started.job_ref == "" and ("fleets.tasks.provision", str(started.pk)) in queued_tasks
    # The VM being started counts as capacity: the next dispatch does not start another.
    assert scale_decision(pool=pool, live=[vm, started], queued=6, now=clock.now) == Scale.WAIT


def test_a_vm_started_ahead_of_demand_is_provisioned_once(
        pool: Pool, clock: Clock, backend: StandInBackend, queued_tasks: list[tuple]) -> None:
    VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="running")
    vm_acquire(pool=pool, job_ref="head", queued=50)
    started = VMInstance.objects.get(state=VMState.PROVISIONING)
    assert vm_prestarted_provision(vm_id=started.pk)
    assert not vm_prestarted_provision(vm_id=started.pk)  # a second run of the task finds it claimed
    started.refresh_from_db()
    assert started.state == VMState.WARM and backend.alive == {str(started.pk)}


def test_a_fixed_pool_still_binds_a_cold_start_to_the_job_below_max_vms(pool: Pool, clock: Clock) -> None:
    pool.policy = PoolPolicy.FIXED
    pool.save()
    busy_vm(pool, since=clock.now)
    acquired = vm_acquire(pool=pool, job_ref="job", queued=1)
    assert acquired is not None and acquired[1] and acquired[0].job_ref == "job"


@pytest.mark.parametrize(("hours", "moment", "floor"), [
    ("08-18", "07:56", 1),  # a cold start (5 min) ahead of 08:00
    ("08-18", "07:50", 0),
    ("08-18", "17:59", 1),
    ("08-18", "18:00", 0),
    ("22-06", "03:00", 1),  # across midnight
    ("", "12:00", 0),
])
def test_pre_warm_hours_keep_one_vm_up_and_start_it_a_cold_start_ahead(
        pool: Pool, clock: Clock, backend: StandInBackend, queued_tasks: list[tuple],
        hours: str, moment: str, floor: int) -> None:
    pool.prewarm_hours = hours
    pool.save()
    hour, minute = map(int, moment.split(":"))
    clock.now = T0.replace(hour=hour, minute=minute)
    vm_reap_idle()
    assert VMInstance.objects.filter(pool=pool, state=VMState.PROVISIONING, job_ref="").count() == floor


def test_inside_pre_warm_hours_the_last_warm_vm_is_not_reaped(pool: Pool, clock: Clock,
                                                            backend: StandInBackend) -> None:
    pool.prewarm_hours = "09-17"
    pool.save()
    vm = warm_vm(pool, idle_since=clock.now - timedelta(hours=2))
    assert vm_reap_idle() == 0
    vm.refresh_from_db()
    assert vm.state == VMState.WARM


def test_always_on_keeps_min_vms_up_and_reaps_only_above_them(
        pool: Pool, clock: Clock, backend: StandInBackend, queued_tasks: list[tuple]) -> None:
    pool.policy, pool.min_vms = PoolPolicy.ALWAYS_ON, 2
    pool.save()
    old = warm_vm(pool, idle_since=clock.now - timedelta(hours=5))
    vm_reap_idle()  # one up, two wanted: one more is started; the idle one stays
    old.refresh_from_db()
    assert old.state == VMState.WARM
    assert VMInstance.objects.filter(pool=pool, state=VMState.PROVISIONING).count() == 1
    third = warm_vm(pool, idle_since=clock.now - timedelta(hours=1))
    assert vm_reap_idle() == 1  # three up: the longest idle above the two goes
    old.refresh_from_db()
    third.refresh_from_db()
    assert (old.state, third.state) == (VMState.STOPPED, VMState.WARM)


def _live(pool: Pool) -> list[VMInstance]:
    return list(VMInstance.objects.filter(pool=pool, state__in=("PROVISIONING", "BUSY", "WARM", "DRAINING")))


def _plan_acts(pool: Pool, at: datetime) -> bool:
    plan = reap_plan(pool=pool, live=_live(pool), now=at)
    return bool(plan.stop or plan.start)


@pytest.mark.parametrize(("policy", "jobs_last_hour", "idle_s"), [
    (PoolPolicy.FIXED, 0, 30),  # 600 s after it went idle
    (PoolPolicy.ADAPTIVE, 0, 30),  # C/4
    (PoolPolicy.ADAPTIVE, 8, 30),  # 300 s now; shorter as the hour's jobs turn an hour old
    (PoolPolicy.ADAPTIVE, 14, 100),  # 4C now: the timeout falls step by step before the VM is reaped
    (PoolPolicy.ADAPTIVE, 8, 4000),  # already past it: due now
])
def test_the_reaper_is_due_exactly_when_the_policy_would_first_act(
        pool: Pool, clock: Clock, policy: str, jobs_last_hour: int, idle_s: float) -> None:
    """The simulator skips reaper runs before reap_due_at: before it the plan is empty at every
    moment, at it the plan stops the VM (nothing else happening meanwhile)."""
    pool.policy = policy
    pool.save()
    vm = warm_vm(pool, idle_since=clock.now - timedelta(seconds=idle_s))
    jobs(pool, vm, count=jobs_last_hour, ending=clock.now)
    due = reap_due_at(pool=pool, live=_live(pool), now=clock.now)
    assert due is not None and due >= clock.now
    steps = int((due - clock.now).total_seconds() // 7)
    before = [clock.now + timedelta(seconds=7 * k) for k in range(steps + 1)] + [due - timedelta(microseconds=1)]
    assert not any(_plan_acts(pool, at) for at in before if clock.now <= at < due)  # every 7 s, and the last µs
    assert _plan_acts(pool, due)


def test_the_reaper_is_never_due_with_no_warm_vm_and_nothing_to_keep_up(pool: Pool, clock: Clock) -> None:
    busy_vm(pool, since=clock.now)
    assert reap_due_at(pool=pool, live=_live(pool), now=clock.now) is None
    # ... but a VM still provisioning is due at the pool's provisioning limit.
    VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, created_at=clock.now, state_changed_at=clock.now)
    assert vm_reap_due_at(now=clock.now) == clock.now + timedelta(seconds=pool.provision_timeout_s)


def test_the_reaper_is_due_at_a_pre_warm_edge_a_cold_start_ahead(pool: Pool, clock: Clock) -> None:
    pool.prewarm_hours = "14-16"
    pool.save()
    clock.now = T0.replace(hour=13)
    due = reap_due_at(pool=pool, live=[], now=clock.now)
    assert due == T0.replace(hour=14) - timedelta(seconds=300)  # the pool's cold start estimate
    assert not _plan_acts(pool, due - timedelta(seconds=1)) and _plan_acts(pool, due)


@pytest.mark.parametrize("queued", [1, 6, 12])
def test_with_nothing_happening_a_job_told_to_wait_is_told_to_wait_later_too(
        pool: Pool, clock: Clock, queued: int) -> None:
    """Why the simulator may skip the sweep's re-dispatch while nothing happens: the expected wait
    only shrinks as busy VMs run on and starting VMs get closer to ready."""
    vm = busy_vm(pool, since=clock.now - timedelta(seconds=10))
    jobs(pool, vm, count=5, ending=clock.now, length_s=60)
    starting = VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, created_at=clock.now,
                                         state_changed_at=clock.now)
    live = [vm, starting]
    decisions = [scale_decision(pool=pool, live=live, queued=queued, now=clock.now + timedelta(seconds=s))
                 for s in range(0, 900, 15)]
    if Scale.WAIT in decisions:
        first = decisions.index(Scale.WAIT)
        assert set(decisions[first:]) == {Scale.WAIT}, decisions


@pytest.mark.parametrize("text", ["8-18", "08-18,20-23", "22-06", ""])
def test_pre_warm_hours_accept_hour_ranges(text: str) -> None:
    validate_prewarm_hours(text)


@pytest.mark.parametrize("text", ["8", "08-08", "25-26", "morning", "08-18;20-22"])
def test_pre_warm_hours_refuse_anything_else_with_a_sentence(text: str) -> None:
    with pytest.raises(ValidationError, match="HH-HH|hours run"):
        validate_prewarm_hours(text)


def test_billing_tells_the_paid_pools_how_much_credit_is_used_and_100_at_the_hard_stop(
        db: Any, pool: Pool, local_pool: Any, clock: Clock, make_grant: Callable[..., Any]) -> None:
    from billing.services import ledger_adjust
    from billing.tasks import accrue

    accrue()  # no grant: paid pools are stopped
    pool.refresh_from_db()
    assert pool.credit_used_pct == 100
    make_grant(Decimal(100))
    ledger_adjust(pool=pool, amount=Decimal("85.5"), note="spent", period_start=clock.now, period_end=clock.now)
    accrue()
    pool.refresh_from_db()
    local_pool.refresh_from_db()
    assert (pool.credit_used_pct, local_pool.credit_used_pct) == (85, None)  # the free pool is not held back


def test_at_the_hard_stop_no_pool_starts_vms_ahead_of_demand(pool: Pool, clock: Clock, backend: StandInBackend,
                                                            queued_tasks: list[tuple]) -> None:
    pool.policy, pool.min_vms = PoolPolicy.ALWAYS_ON, 2
    pool.save()
    pools_credit_used_set(used_pct=Decimal(100), pool_ids=[pool.pk])
    vm_reap_idle()
    assert not VMInstance.objects.filter(pool=pool).exists()


@pytest.fixture
def make_grant(db: Any, clock: Clock) -> Callable[..., Any]:
    return lambda amount: credit_grant_create(name="grant", amount=amount, starts_at=clock.now - timedelta(days=1))


# ---- PostgreSQL: dispatchers racing --------------------------------------------------------------
@pytest.mark.integration  # the PostgreSQL pass of scripts/test.sh runs `-m integration`
@pytest.mark.skipif(not django_settings.IS_POSTGRES, reason="needs PostgreSQL (set DATABASE_URL=postgres://...): "
                    "SQLite serializes writers, so it cannot show concurrent dispatchers racing")
@pytest.mark.django_db(transaction=True)
def test_racing_dispatchers_of_an_adaptive_pool_never_start_more_than_max_vms(queued_tasks: list[tuple]) -> None:
    # Credit left: without a grant the paid pool is at the hard stop, and the first VM's billing (on
    # commit) lowers its ceiling to one VM, so whether a second start happened depended on which thread
    # won the race to the pool's row.
    credit_grant_create(name="grant", amount=Decimal(1000), starts_at=timezone.now() - timedelta(days=1))
    pool = Pool.objects.create(name="race", backend="sim", device="hip", max_vms=3, hourly_rate=Decimal(1),
                                policy=PoolPolicy.ADAPTIVE, config={"agent": "none"})
    VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="running")
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def dispatcher(index: int) -> None:
        try:
            barrier.wait()
            for attempt in range(3):  # a long queue: each call would start a VM if the pool let it
                vm_acquire(pool=pool, job_ref=f"job-{index}-{attempt}", queued=50)
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=dispatcher, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert VMInstance.objects.filter(pool=pool).count() == 3  # the busy one and two started for the pool
    assert VMInstance.objects.filter(pool=pool, state=VMState.PROVISIONING, job_ref="").count() == 2

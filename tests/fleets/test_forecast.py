"""The demand forecast (fleets/forecast.py) and pre-warming from it (fleets/prewarm.py) through the
reaper: what it learns from the pool's history, that it reads nothing from the present slot on, the
starts it explains, and the budget and credit rules it keeps. Time is set through core.clock."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from core.clock import clock_use
from fleets.forecast import demand_forecast, slot_start
from fleets.models import Pool, PoolArrivals, PoolEvent, PoolPolicy, PrewarmCharge, PrewarmDecision, VMInstance, VMState
from fleets.policy import reap_due_at
from fleets.prewarm import slot_charge
from fleets.prewarm_services import pool_arrival_record
from fleets.selectors import prewarm_overview
from fleets.services import vm_reap_idle

NOW = datetime(2026, 11, 12, 13, 55, tzinfo=UTC)  # a Thursday
HORIZON = 660.0  # a cold start of 360 s and a slot
SCALE = 660 / (660 + 7200)  # the horizon within the seasonal window read (an hour either side)


@pytest.fixture
def clock() -> Iterator[list[datetime]]:
    at = [NOW]
    with clock_use(lambda: at[0]):
        yield at


@pytest.fixture
def pool(db: Any) -> Pool:
    return Pool.objects.create(name="gpu", backend="sim", device="hip", max_vms=3, hourly_rate=Decimal("1.99"),
                               policy=PoolPolicy.ADAPTIVE, forecast_prewarm=True, prewarm_budget_usd=Decimal("5"),
                               config={"agent": "none", "cold_start_estimate_s": 360})


def arrivals(pool: Pool, at: datetime, count: int) -> None:
    for _ in range(count):
        pool_arrival_record(pool=pool, at=at)


def afternoons(pool: Pool, *, days: int, count: int) -> None:
    """`count` submissions at 14:00 on each of the `days` days before NOW, and one at 03:00 (history
    that starts that far back)."""
    for day in range(1, days + 1):
        arrivals(pool, NOW.replace(hour=14, minute=0) - timedelta(days=day), count)
        arrivals(pool, NOW.replace(hour=3, minute=0) - timedelta(days=day), 1)


def test_a_submission_is_counted_in_its_five_minute_slot(pool: Pool) -> None:
    arrivals(pool, NOW.replace(minute=57, second=12), 2)
    arrivals(pool, NOW.replace(minute=59, second=59), 1)
    arrivals(pool, NOW.replace(hour=14, minute=0), 1)
    assert sorted(PoolArrivals.objects.values_list("slot", "count")) == [
        (NOW, 3), (NOW.replace(hour=14, minute=0), 1)]


def test_it_learns_the_time_of_day_from_the_pools_own_history(pool: Pool) -> None:
    afternoons(pool, days=4, count=12)
    at_two = demand_forecast(pool=pool, now=NOW, horizon_s=HORIZON)
    assert at_two.seasonal == pytest.approx(12 * SCALE)  # 12 at 14:00 on each of the 4 days, near 13:55
    assert at_two.expected == pytest.approx(12 * SCALE)
    assert at_two.chance == pytest.approx(1 - math.exp(-12 * SCALE))
    assert "expected 1.0 arrivals in the next 11 min (the pool's history at this time)" in at_two.sentence()
    at_night = demand_forecast(pool=pool, now=NOW.replace(hour=9), horizon_s=HORIZON)
    assert at_night.expected == 0


def test_one_day_of_history_counts_as_a_third_of_a_pattern(pool: Pool) -> None:
    afternoons(pool, days=1, count=12)
    forecast = demand_forecast(pool=pool, now=NOW, horizon_s=HORIZON)
    assert forecast.seasonal == pytest.approx(12 / 3 * SCALE)


def test_a_window_busy_on_one_day_of_seven_is_no_reason_to_keep_a_vm(pool: Pool) -> None:
    afternoons(pool, days=7, count=0)  # history back 7 days (one submission at 03:00 each day)
    arrivals(pool, NOW.replace(hour=14, minute=0) - timedelta(days=2), 3)  # a session, once
    forecast = demand_forecast(pool=pool, now=NOW, horizon_s=HORIZON)
    assert forecast.expected == pytest.approx(3 / 7 * SCALE) and forecast.chance < 0.05
    vm_reap_idle(now=NOW)
    assert not VMInstance.objects.exists()


def test_it_reads_nothing_from_the_current_slot_on(pool: Pool) -> None:
    afternoons(pool, days=3, count=2)
    arrivals(pool, NOW - timedelta(minutes=20), 5)  # the last hour: 5 arrivals
    before = demand_forecast(pool=pool, now=NOW + timedelta(minutes=4), horizon_s=HORIZON)
    arrivals(pool, NOW + timedelta(minutes=1), 50)  # in the current slot
    arrivals(pool, NOW + timedelta(days=1), 50)  # the future
    after = demand_forecast(pool=pool, now=NOW + timedelta(minutes=4), horizon_s=HORIZON)
    assert after == before
    assert before.recent == pytest.approx(5 * HORIZON / 3600)


def test_a_few_submissions_in_the_last_hour_are_a_session_not_a_rate(pool: Pool) -> None:
    arrivals(pool, NOW - timedelta(minutes=20), 4)
    assert demand_forecast(pool=pool, now=NOW, horizon_s=HORIZON).expected == 0
    arrivals(pool, NOW - timedelta(minutes=10), 1)
    assert demand_forecast(pool=pool, now=NOW, horizon_s=HORIZON).expected == pytest.approx(5 * HORIZON / 3600)


def test_a_declared_event_raises_the_forecast_ahead_of_its_start(pool: Pool) -> None:
    PoolEvent.objects.create(pool=pool, title="contest", starts_at=NOW + timedelta(minutes=8),
                             ends_at=NOW + timedelta(hours=3), expected_per_h=60)
    forecast = demand_forecast(pool=pool, now=NOW, horizon_s=HORIZON)
    assert forecast.expected == pytest.approx(11.0)
    assert "event 'contest'" in forecast.sentence()
    assert demand_forecast(pool=pool, now=NOW + timedelta(hours=3), horizon_s=HORIZON).expected == 0


def test_the_reaper_starts_a_vm_ahead_of_the_forecast_demand_and_says_why(pool: Pool, clock: list[datetime]) -> None:
    afternoons(pool, days=4, count=12)
    vm_reap_idle(now=NOW)
    vm = VMInstance.objects.get(pool=pool)
    assert vm.state == VMState.PROVISIONING and vm.job_ref == ""
    decision = PrewarmDecision.objects.get(pool=pool)
    assert decision.vm_id == vm.pk
    assert decision.reason == ("Started at 13:55 UTC: expected 1.0 arrivals in the next 11 min (the pool's history "
                               "at this time); 1 VM(s) wanted ready.")
    assert list(PrewarmCharge.objects.values_list("vm_id", "slot")) == [(vm.pk, NOW)]
    vm_reap_idle(now=NOW + timedelta(minutes=1))  # the same slot: nothing more started or charged
    assert VMInstance.objects.filter(pool=pool).count() == 1 and PrewarmCharge.objects.count() == 1
    vm_reap_idle(now=NOW + timedelta(minutes=5))  # the next slot: the unused VM is charged again
    assert PrewarmCharge.objects.count() == 2
    shown = prewarm_overview(now=NOW)[0]
    assert shown.decisions[0].reason == decision.reason and shown.vms_wanted == 1
    assert shown.spent_today == 2 * slot_charge(pool=pool)


def test_without_the_switch_the_pool_starts_nothing_ahead(pool: Pool) -> None:
    afternoons(pool, days=4, count=12)
    Pool.objects.filter(pk=pool.pk).update(forecast_prewarm=False)
    vm_reap_idle(now=NOW)
    assert not VMInstance.objects.exists()


def test_a_heavy_forecast_keeps_more_vms_but_never_more_than_max_vms(pool: Pool) -> None:
    PoolEvent.objects.create(pool=pool, title="rush", starts_at=NOW, ends_at=NOW + timedelta(hours=1),
                             expected_per_h=10_000)
    vm_reap_idle(now=NOW)
    assert VMInstance.objects.filter(pool=pool).count() == pool.max_vms == 3


def test_the_budget_bounds_what_a_days_pre_warming_may_be_charged(pool: Pool) -> None:
    """Each slot charged ahead; a VM the budget cannot pay the next slot for is stopped."""
    pool.prewarm_budget_usd = Decimal("0.50")  # 2 slots of 6 min at 1.99 USD/h (0.199 each)
    pool.save()
    PoolEvent.objects.create(pool=pool, title="a contest that never comes", starts_at=NOW,
                             ends_at=NOW + timedelta(hours=6), expected_per_h=10)
    vm_reap_idle(now=NOW)
    vm_reap_idle(now=NOW + timedelta(minutes=5))
    vm = VMInstance.objects.get(pool=pool)
    assert vm.state == VMState.PROVISIONING
    vm_reap_idle(now=NOW + timedelta(minutes=10))  # a third slot is over the budget: stopped
    vm.refresh_from_db()
    assert vm.state == VMState.FAILED and "pre-warm budget" in vm.state_reason
    vm_reap_idle(now=NOW + timedelta(minutes=15))
    assert VMInstance.objects.filter(pool=pool).count() == 1  # none started again
    assert sum(PrewarmCharge.objects.values_list("amount", flat=True)) <= pool.prewarm_budget_usd
    # The next UTC day has a budget of its own.
    vm_reap_idle(now=NOW.replace(hour=0, minute=0) + timedelta(days=1))
    assert VMInstance.objects.filter(pool=pool).count() == 1  # the event is over by then


@pytest.mark.parametrize("used", [Decimal(80), Decimal(100)])
def test_from_80_percent_of_the_credit_the_forecast_starts_nothing(pool: Pool, used: Decimal) -> None:
    afternoons(pool, days=4, count=12)
    Pool.objects.filter(pk=pool.pk).update(credit_used_pct=used)
    vm_reap_idle(now=NOW)
    assert not VMInstance.objects.exists()


def test_a_held_vm_past_its_idle_timeout_is_charged_each_slot(pool: Pool) -> None:
    afternoons(pool, days=4, count=12)
    idle_since = NOW - timedelta(minutes=30)
    vm = VMInstance.objects.create(pool=pool, state=VMState.WARM, created_at=idle_since - timedelta(minutes=10),
                                   ready_at=idle_since - timedelta(minutes=5), last_used_at=idle_since,
                                   state_changed_at=idle_since, jobs_started=1)
    assert reap_due_at(pool=pool, live=[vm], now=NOW) == NOW  # its charge is due
    vm_reap_idle(now=NOW)
    vm.refresh_from_db()
    assert vm.state == VMState.WARM  # adaptive alone would have stopped it (idle 30 min, no job this hour)
    assert list(PrewarmCharge.objects.values_list("vm_id", flat=True)) == [vm.pk]
    assert reap_due_at(pool=pool, live=[vm], now=NOW) == NOW + timedelta(minutes=5)  # the next slot's charge


def test_the_simulator_is_woken_when_a_second_kept_vm_passes_its_timeout(pool: Pool) -> None:
    PoolEvent.objects.create(pool=pool, title="office hours", starts_at=NOW, ends_at=NOW + timedelta(hours=1),
                             expected_per_h=30)  # 2 VMs wanted ready
    held, fresh = (VMInstance.objects.create(
        pool=pool, state=VMState.WARM, created_at=NOW - timedelta(hours=1), ready_at=NOW - timedelta(minutes=50),
        last_used_at=NOW - timedelta(seconds=idle), state_changed_at=NOW - timedelta(seconds=idle), jobs_started=1)
        for idle in (1800, 30))
    vm_reap_idle(now=NOW)
    assert list(PrewarmCharge.objects.values_list("vm_id", flat=True)) == [held.pk]
    # The other passes its timeout within the slot (150 s: a quarter of their 600 s cold start, no job in
    # the last hour), and is charged then.
    assert reap_due_at(pool=pool, live=[held, fresh], now=NOW) == NOW + timedelta(seconds=120)
    vm_reap_idle(now=NOW + timedelta(seconds=120))
    assert PrewarmCharge.objects.count() == 2
    assert reap_due_at(pool=pool, live=[held, fresh], now=NOW + timedelta(seconds=120)) == NOW + timedelta(minutes=5)


def test_the_pool_page_shows_the_forecast_and_the_starts(pool: Pool, admin_client: Any) -> None:
    afternoons(pool, days=4, count=12)
    PrewarmDecision.objects.create(pool=pool, at=NOW, expected=3.2, horizon_s=600, vms_wanted=1,
                                   reason="Started at 13:55 UTC: expected 3.2 arrivals in the next 10 min.")
    page = admin_client.get(f"/admin/fleets/pool/{pool.pk}/change/")
    assert page.status_code == 200
    assert b"expected 3.2 arrivals in the next 10 min" in page.content
    assert b"Forecast now" in page.content and b"pre-warming spent 0.00 of 5.00 USD today" in page.content
    assert admin_client.get("/admin/fleets/prewarmdecision/").status_code == 200
    dashboard = admin_client.get("/admin/billing/ledgerentry/dashboard/")
    assert dashboard.status_code == 200 and b"Started at 13:55 UTC" in dashboard.content


def test_slot_start_is_aligned_on_the_hour() -> None:
    assert slot_start(NOW.replace(minute=59, second=59, microsecond=5)) == NOW
    assert slot_start(NOW.replace(minute=0)) == NOW.replace(minute=0)

"""Reconciliation of dstack pools: our VM time × rate against the provider's price × lifetime; a gap
over 1 % is booked once as a reconciliation entry and shown in the admin."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from billing.models import LedgerEntry, ReconciliationReport, Source
from billing.reconcile import InstanceCost, pool_reconcile, pools_reconcile
from billing.services import ledger_accrue
from tests.billing.conftest import move

DAY = datetime(2026, 3, 10, tzinfo=UTC)
NOW = DAY + timedelta(days=1, hours=2)


@dataclass
class FakeDstack:
    """Stands in for the dstack server: the instances it would bill for a pool."""

    instances: list[InstanceCost] = field(default_factory=list)
    calls: int = 0

    def instance_costs(self, pool: Any) -> list[InstanceCost]:
        self.calls += 1
        return self.instances


@pytest.fixture
def dstack_pool(db: Any) -> Any:
    from fleets.services import pool_ensure

    pool, _ = pool_ensure(name="amd-mi300x", backend="dstack", device="hip", max_vms=2, idle_timeout_s=600,
                            hourly_rate=Decimal("1.99"))
    return pool


@pytest.fixture
def two_hours_booked(dstack_pool: Any, make_vm: Any) -> Any:
    """Our side: a VM up from 10:00 to 12:00 on DAY at 1.99/h = 3.98 USD."""
    vm = make_vm(dstack_pool, at=DAY + timedelta(hours=10))
    move(vm, "WARM", DAY + timedelta(hours=10, minutes=5))
    move(vm, "STOPPED", DAY + timedelta(hours=12))
    ledger_accrue(vm_id=vm.pk, now=NOW)
    return vm


def instance(start_h: float, end_h: float | None, price: str = "1.99") -> InstanceCost:
    return InstanceCost(name="amd-mi300x-0", price_per_hour=Decimal(price),
                        started_at=DAY + timedelta(hours=start_h),
                        finished_at=None if end_h is None else DAY + timedelta(hours=end_h))


def test_a_gap_over_one_percent_is_booked_once(dstack_pool: Any, two_hours_booked: Any) -> None:
    # dstack kept the instance 30 min longer (its idle_duration) than our VM lived.
    source = FakeDstack([instance(9.95, 12.5)])
    report = pool_reconcile(pool=dstack_pool, source=source, start=DAY, end=DAY + timedelta(days=1), now=NOW)
    assert report.ours == Decimal("3.980000")
    assert report.theirs == Decimal("5.074500")  # 2.55 h × 1.99
    assert report.gap == Decimal("1.094500")
    assert report.gap_pct == Decimal("21.57")
    entry = report.entry
    assert entry is not None
    assert entry.source == Source.RECONCILIATION
    assert entry.amount == Decimal("1.094500")
    assert entry.vm is None
    assert entry.pool == dstack_pool
    assert "dstack billed 5.074500 USD" in entry.note

    again = pool_reconcile(pool=dstack_pool, source=source, start=DAY, end=DAY + timedelta(days=1), now=NOW)
    assert again.entry is None
    assert again.gap == 0
    assert LedgerEntry.objects.filter(source=Source.RECONCILIATION).count() == 1


def test_a_gap_within_one_percent_is_shown_but_not_booked(dstack_pool: Any, two_hours_booked: Any) -> None:
    report = pool_reconcile(pool=dstack_pool, source=FakeDstack([instance(10, 12, price="2.00")]),
                             start=DAY, end=DAY + timedelta(days=1), now=NOW)
    assert report.gap == Decimal("0.020000")
    assert report.gap_pct == Decimal("0.50")
    assert report.entry is None
    assert not LedgerEntry.objects.filter(source=Source.RECONCILIATION).exists()


def test_we_credit_back_when_we_booked_more_than_dstack_billed(dstack_pool: Any, two_hours_booked: Any) -> None:
    report = pool_reconcile(pool=dstack_pool, source=FakeDstack([instance(10, 11)]), start=DAY,
                             end=DAY + timedelta(days=1), now=NOW)
    assert report.entry is not None
    assert report.entry.amount == Decimal("-1.990000")


def test_only_the_window_is_compared(dstack_pool: Any, make_vm: Any) -> None:
    # Up from 23:00 on DAY to 01:00 the next day: half of it belongs to DAY.
    vm = make_vm(dstack_pool, at=DAY + timedelta(hours=23))
    move(vm, "STOPPED", DAY + timedelta(hours=25))
    report = pool_reconcile(pool=dstack_pool, source=FakeDstack([instance(23, 25)]), start=DAY,
                             end=DAY + timedelta(days=1), now=NOW)
    assert report.ours == report.theirs == Decimal("1.990000")
    assert report.entry is None


def test_the_scheduled_job_reconciles_yesterday_for_dstack_pools_only(dstack_pool: Any, paid_pool: Any,
                                                                      two_hours_booked: Any) -> None:
    source = FakeDstack([instance(10, 13)])
    result = pools_reconcile(now=NOW, source_for=lambda pool: source)
    assert result == {"pools": 1, "corrections": 1}
    assert source.calls == 1
    assert pools_reconcile(now=NOW, source_for=lambda pool: source) == {"pools": 1, "corrections": 0}
    assert set(ReconciliationReport.objects.values_list("pool__name", flat=True)) == {"amd-mi300x"}
    assert pools_reconcile(now=NOW) == {"pools": 0, "corrections": 0}  # no source configured


def test_the_dstack_adapter_reads_fleet_instances(dstack_pool: Any, monkeypatch: Any) -> None:
    from billing.reconcile import DstackInstanceSource
    from fleets import dstack

    seen = {}

    def fake_list(client: Any, name: str, *, include_terminated: bool = False) -> list[Any]:
        seen.update(client=client, name=name, include_terminated=include_terminated)
        return [dstack.FleetInstance(name="amd-mi300x-0", instance_num=0, status="terminated",
                                     backend="amddevcloud", region="atl1", price=1.99, created=DAY,
                                     finished_at=DAY + timedelta(hours=1), busy_blocks=0, total_blocks=1,
                                     termination_reason="idle")]

    monkeypatch.setattr(dstack, "list_fleet_instances", fake_list)
    [cost] = DstackInstanceSource("client").instance_costs(dstack_pool)
    assert seen == {"client": "client", "name": "amd-mi300x", "include_terminated": True}
    assert (cost.price_per_hour, cost.started_at, cost.finished_at) == (Decimal("1.99"), DAY, DAY + timedelta(hours=1))

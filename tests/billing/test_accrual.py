"""Accrual: every VM-second is booked once, by phase, at the right rate, to the right submission."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction

from billing.amounts import seconds_between
from billing.models import LedgerEntry, Phase, RateSource, Source, VMAccrual
from billing.services import ledger_accrue, ledger_accrue_all, vm_price_record
from tests.billing.conftest import RATE, T0, move


def s(seconds: float) -> Any:
    return T0 + timedelta(seconds=seconds)


def by_phase() -> dict[str, Decimal]:
    totals: dict[str, Decimal] = {}
    for entry in LedgerEntry.objects.all():
        totals[entry.phase] = totals.get(entry.phase, Decimal(0)) + entry.seconds
    return totals


def test_a_whole_vm_life_costs_uptime_times_rate_to_the_cent_split_by_phase(
        paid_pool: Any, make_vm: Any, make_submission: Any, owner: Any, other_user: Any) -> None:
    first, second = make_submission(owner, paid_pool), make_submission(other_user, paid_pool)
    vm = make_vm(paid_pool, job_ref=str(first.pk))
    ledger_accrue(vm_id=vm.pk, now=s(0))
    ticks = list(range(60, 2000, 60))  # the every-minute schedule, interleaved with the changes

    def tick_until(at: float) -> None:
        while ticks and ticks[0] < at:
            ledger_accrue(vm_id=vm.pk, now=s(ticks.pop(0)))

    tick_until(90.5)
    move(vm, "BUSY", s(90.5), job_ref=str(first.pk))
    tick_until(390.5)
    move(vm, "WARM", s(390.5))
    tick_until(400)
    move(vm, "BUSY", s(400), job_ref=str(second.pk))
    move(vm, "WARM", s(500.25))
    tick_until(1100)
    move(vm, "DRAINING", s(1100))
    move(vm, "STOPPED", s(1105))
    ledger_accrue(vm_id=vm.pk, now=s(3000))  # after its end: nothing more

    assert by_phase() == {Phase.PROVISIONING: Decimal("90.5"), Phase.BUSY: Decimal("400.25"),
                          Phase.IDLE: Decimal("609.25"), Phase.DRAINING: Decimal("5")}
    total = sum(e.amount for e in LedgerEntry.objects.all())
    assert total.quantize(Decimal("0.01")) == (Decimal(1105) * RATE / 3600).quantize(Decimal("0.01"))
    busy = LedgerEntry.objects.filter(phase=Phase.BUSY)
    assert {(e.submission_id, e.user_id) for e in busy} == {(first.pk, owner.pk), (second.pk, other_user.pk)}
    assert sum(e.seconds for e in busy.filter(submission=first)) == Decimal("300")
    # The cold start and the idle tail after each job are charged to that job's owner; nothing is unowned.
    charged = {(e.phase, e.user_id): Decimal(0) for e in LedgerEntry.objects.all()}
    for e in LedgerEntry.objects.all():
        charged[(e.phase, e.user_id)] += e.seconds
    assert charged == {(Phase.PROVISIONING, owner.pk): Decimal("90.5"), (Phase.BUSY, owner.pk): Decimal("300"),
                       (Phase.IDLE, owner.pk): Decimal("9.5"), (Phase.BUSY, other_user.pk): Decimal("100.25"),
                       (Phase.IDLE, other_user.pk): Decimal("599.75"), (Phase.DRAINING, other_user.pk): Decimal("5")}
    assert {e.rate_per_hour for e in LedgerEntry.objects.all()} == {RATE}
    assert {e.rate_source for e in LedgerEntry.objects.all()} == {RateSource.POOL}
    assert VMAccrual.objects.get(pk=vm.pk).closed
    # The periods tile the VM's life exactly: no gap, no overlap.
    periods = sorted((e.period_start, e.period_end) for e in LedgerEntry.objects.all())
    assert periods[0][0] == s(0)
    assert periods[-1][1] == s(1105)
    assert all(a[1] == b[0] for a, b in zip(periods, periods[1:], strict=False))


def test_a_vm_started_ahead_of_demand_is_charged_to_nobody_until_it_serves_a_job(
        paid_pool: Any, make_vm: Any, make_submission: Any, owner: Any) -> None:
    job = make_submission(owner, paid_pool)
    vm = make_vm(paid_pool)  # no job reserved it: a pre-warmed VM
    move(vm, "WARM", s(60))
    ledger_accrue(vm_id=vm.pk, now=s(120))
    move(vm, "BUSY", s(150), job_ref=str(job.pk))
    move(vm, "WARM", s(210))
    ledger_accrue(vm_id=vm.pk, now=s(300))  # the idle tail, booked in a later accrual than the job
    entries = [(e.phase, e.user_id, e.seconds) for e in LedgerEntry.objects.order_by("period_start")]
    assert entries == [(Phase.PROVISIONING, None, 60), (Phase.IDLE, None, 60), (Phase.IDLE, None, 30),
                       (Phase.BUSY, owner.pk, 60), (Phase.IDLE, owner.pk, 90)]
    assert LedgerEntry.objects.filter(phase=Phase.IDLE, user=owner).get().submission_id == job.pk


@pytest.mark.parametrize("recent", [1, 2, 3, 100])
def test_the_ledger_is_the_same_however_much_recent_history_an_accrual_reads(
        paid_pool: Any, make_vm: Any, make_submission: Any, owner: Any, other_user: Any,
        monkeypatch: pytest.MonkeyPatch, recent: int) -> None:
    """Accrual reads the VM's latest recorded changes in one query and falls back to reading the
    history when they do not reach back to the start of the period (billing.services.RECENT_CHANGES)."""
    import billing.services

    first, second = make_submission(owner, paid_pool), make_submission(other_user, paid_pool)
    entries = {}
    for window in (recent, 1000):
        monkeypatch.setattr(billing.services, "RECENT_CHANGES", window)
        vm = make_vm(paid_pool, job_ref=str(first.pk))
        ledger_accrue(vm_id=vm.pk, now=s(0))
        move(vm, "BUSY", s(60), job_ref=str(first.pk))
        move(vm, "WARM", s(120))
        ledger_accrue(vm_id=vm.pk, now=s(180))  # idle since a job: charged to it
        # Changes recorded (an accrual observes the state) while the time is not yet booked: the
        # period booked next spans several of them.
        for at, state, job in ((240, "BUSY", second), (300, "WARM", None), (300, "BUSY", first),
                               (360, "WARM", None), (420, "BUSY", second), (480, "WARM", None)):
            move(vm, state, s(at), job_ref=str(job.pk) if job else "", accrue=False)
            ledger_accrue(vm_id=vm.pk, now=s(180))
        ledger_accrue(vm_id=vm.pk, now=s(540))
        move(vm, "DRAINING", s(600))
        move(vm, "STOPPED", s(610))
        entries[window] = [(e.phase, e.period_start, e.period_end, e.submission_id, e.user_id, e.amount)
                           for e in LedgerEntry.objects.filter(vm=vm).order_by("period_start")]
    assert entries[recent] == entries[1000]
    assert [(phase, start, end) for phase, start, end, *_ in entries[recent]] == [
        (Phase.PROVISIONING, s(0), s(60)), (Phase.BUSY, s(60), s(120)), (Phase.IDLE, s(120), s(180)),
        (Phase.IDLE, s(180), s(240)), (Phase.BUSY, s(240), s(300)), (Phase.BUSY, s(300), s(360)),
        (Phase.IDLE, s(360), s(420)), (Phase.BUSY, s(420), s(480)), (Phase.IDLE, s(480), s(540)),
        (Phase.IDLE, s(540), s(600)), (Phase.DRAINING, s(600), s(610))]
    assert [job for _, _, _, job, _, _ in entries[recent]] == [
        first.pk, first.pk, first.pk, first.pk, second.pk, first.pk, first.pk, second.pk, second.pk, second.pk,
        second.pk]


def test_running_the_accrual_twice_never_charges_twice(paid_pool: Any, make_vm: Any) -> None:
    vm = make_vm(paid_pool)
    move(vm, "WARM", s(30))
    first = ledger_accrue(vm_id=vm.pk, now=s(120))
    again = ledger_accrue(vm_id=vm.pk, now=s(120))
    earlier = ledger_accrue(vm_id=vm.pk, now=s(60))
    assert len(first) == 1
    assert again == []
    assert earlier == []
    assert sum(e.seconds for e in LedgerEntry.objects.all()) == Decimal(120)
    assert ledger_accrue_all(now=s(120)) == 0


def test_the_database_refuses_a_second_accrual_of_the_same_period(paid_pool: Any, make_vm: Any) -> None:
    vm = make_vm(paid_pool)
    [entry] = ledger_accrue(vm_id=vm.pk, now=s(60))
    duplicate = LedgerEntry(vm=vm, pool=paid_pool, phase=entry.phase, period_start=entry.period_start,
                            period_end=entry.period_end, seconds=entry.seconds, rate_per_hour=RATE,
                            amount=entry.amount, source=Source.ACCRUAL)
    with pytest.raises(IntegrityError), transaction.atomic():
        duplicate.save()


def test_it_bills_the_dstack_instance_price_when_the_backend_reports_one(paid_pool: Any, make_vm: Any) -> None:
    vm = make_vm(paid_pool, agent_info={"price_per_hour": "2.5"})
    [entry] = ledger_accrue(vm_id=vm.pk, now=s(3600))
    assert (entry.rate_per_hour, entry.rate_source, entry.amount) == (Decimal("2.5"), RateSource.DSTACK,
                                                                      Decimal("2.500000"))
    vm_price_record(vm_id=vm.pk, price_per_hour=Decimal("1.75"))
    [entry] = ledger_accrue(vm_id=vm.pk, now=s(7200))
    assert entry.amount == Decimal("1.750000")


def test_the_free_local_pool_books_time_at_zero_cost(local_pool: Any, make_vm: Any) -> None:
    vm = make_vm(local_pool)
    move(vm, "WARM", s(10))
    ledger_accrue(vm_id=vm.pk, now=s(70))
    assert sum(e.amount for e in LedgerEntry.objects.all()) == 0
    assert sum(e.seconds for e in LedgerEntry.objects.all()) == 70


def test_the_tick_accrues_every_live_vm_and_finishes_ended_ones(paid_pool: Any, make_vm: Any) -> None:
    live, ended = make_vm(paid_pool), make_vm(paid_pool)
    move(ended, "FAILED", s(42), accrue=False)
    ledger_accrue_all(now=s(60))
    assert sum(e.seconds for e in LedgerEntry.objects.filter(vm=live)) == 60
    assert sum(e.seconds for e in LedgerEntry.objects.filter(vm=ended)) == 42
    assert VMAccrual.objects.get(pk=ended.pk).closed
    assert not VMAccrual.objects.get(pk=live.pk).closed


def test_a_state_change_through_fleets_accrues_at_once(paid_pool: Any, grant: Any,
                                                       django_capture_on_commit_callbacks: Any) -> None:
    from fleets.services import vm_acquire, vm_fail

    grant("100")
    with django_capture_on_commit_callbacks(execute=True):
        acquired = vm_acquire(pool=paid_pool, job_ref="some-job")
        assert acquired is not None
        vm, cold = acquired
    assert cold
    assert VMAccrual.objects.filter(pk=vm.pk).exists()
    with django_capture_on_commit_callbacks(execute=True):
        vm_fail(vm=vm, reason="test", notify=False)
    entries = list(LedgerEntry.objects.filter(vm=vm))
    vm.refresh_from_db()
    assert {e.phase for e in entries} == {Phase.PROVISIONING}
    assert sum(e.seconds for e in entries) == seconds_between(vm.created_at, vm.state_changed_at)
    assert VMAccrual.objects.get(pk=vm.pk).closed


# ---- PostgreSQL: real concurrent workers -------------------------------------------------------
@pytest.mark.integration  # the PostgreSQL pass of scripts/test.sh runs `-m integration`
@pytest.mark.skipif(not settings.IS_POSTGRES, reason="needs PostgreSQL (set DATABASE_URL=postgres://...): "
                    "SQLite serializes writers, so it cannot show concurrent workers racing")
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_on_postgresql_never_charge_twice(paid_pool: Any, make_vm: Any) -> None:
    vm = make_vm(paid_pool)
    move(vm, "WARM", s(45), accrue=False)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            barrier.wait()
            for t in (60, 60, 120 + index % 2, 180):  # same instants, and interleaved ones
                ledger_accrue(vm_id=vm.pk, now=s(t))
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
        finally:
            connection.close()  # each thread had its own connection

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    periods = sorted((e.period_start, e.period_end) for e in LedgerEntry.objects.filter(vm=vm))
    assert periods[0][0] == s(0)
    assert periods[-1][1] == s(180)
    assert all(a[1] == b[0] for a, b in zip(periods, periods[1:], strict=False)), "overlapping periods"
    assert sum(e.seconds for e in LedgerEntry.objects.filter(vm=vm)) == 180
    assert by_phase() == {Phase.PROVISIONING: Decimal(45), Phase.IDLE: Decimal(135)}


def test_vm_costs_sum_each_vms_booked_time(paid_pool: Any, make_vm: Any) -> None:
    from billing.selectors import vm_costs

    one, two = make_vm(paid_pool), make_vm(paid_pool)
    ledger_accrue(vm_id=one.pk, now=s(3600))
    ledger_accrue(vm_id=two.pk, now=s(1800))
    assert vm_costs(vm_ids=[one.pk, two.pk]) == {one.pk: Decimal("1.990000"), two.pk: Decimal("0.995000")}

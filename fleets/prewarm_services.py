"""Writes of forecast pre-warming: the pool's arrival history, the budget's charges, each start's reason
(fleets.prewarm decides; fleets.services.vm_reap_idle calls these)."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import F

from fleets.forecast import Forecast, slot_start
from fleets.models import Pool, PoolArrivals, PrewarmCharge, PrewarmDecision, VMInstance
from fleets.prewarm import slot_charge


def pool_arrival_record(*, pool: Pool, at: datetime) -> None:
    """A submission to `pool` was stored at `at`: one more in its slot. Called once the submission
    committed, in a short transaction of its own (the row is every submission's to the pool)."""
    slot = slot_start(at)
    if _arrival_counted(pool=pool, slot=slot):
        return
    try:
        with transaction.atomic():
            PoolArrivals.objects.create(pool=pool, slot=slot, count=1)
    except IntegrityError:  # another submission created the slot's row meanwhile
        PoolArrivals.objects.filter(pool=pool, slot=slot).update(count=F("count") + 1)


def _arrival_counted(*, pool: Pool, slot: datetime) -> bool:
    """One more in the slot's row, if it exists. The UPDATE is written here, not by the ORM: every
    submission runs it, and Django compiling it cost more than the database running it."""
    meta = PoolArrivals._meta
    column = {f.name: connection.ops.quote_name(f.column) for f in meta.concrete_fields}
    sql = (f"UPDATE {connection.ops.quote_name(meta.db_table)} SET {column['count']} = {column['count']} + 1 "  # noqa: S608
           f"WHERE {column['pool']} = %s AND {column['slot']} = %s")
    params = [meta.get_field("pool").get_db_prep_value(pool.pk, connection),
              meta.get_field("slot").get_db_prep_value(slot, connection)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount > 0


def prewarm_charge(*, pool: Pool, vms: list[VMInstance], now: datetime) -> None:
    """Charge the VMs the forecast alone keeps up for the current slot (once per VM and slot)."""
    slot = slot_start(now)
    PrewarmCharge.objects.bulk_create(
        [PrewarmCharge(pool=pool, vm=vm, slot=slot, amount=slot_charge(pool=pool, vm=vm)) for vm in vms],
        ignore_conflicts=True)


def prewarm_start_record(*, pool: Pool, vm: VMInstance, forecast: Forecast, wanted: int, now: datetime) -> None:
    """Why the forecast started `vm` (the admin and the cost dashboard show it), and its first charge."""
    reason = f"Started at {now:%H:%M} UTC: {forecast.sentence()}; {wanted} VM(s) wanted ready."
    PrewarmDecision.objects.create(pool=pool, vm=vm, at=now, expected=round(forecast.expected, 3),
                                   horizon_s=int(forecast.horizon_s), vms_wanted=wanted, reason=reason)
    prewarm_charge(pool=pool, vms=[vm], now=now)

"""Pre-warming from the forecast (fleets.forecast), for adaptive pools with `forecast_prewarm` on.

- How many VMs to keep ready: one while the forecast gives a submission within a cold start and a slot
  a chance of HOLD_MIN_CHANCE at least, more while the expected load (rate x mean job length) would
  keep each VM busy more than BUSY_SHARE of the time; never above the pool's ceiling (max VMs, the credit's rules).
- What it may spend: every slot of a VM kept up by the forecast alone (started by it and not used yet,
  or idle past the adaptive timeout) is charged ahead, a slot and a reaper period of its rate, against
  the pool's daily budget (PrewarmCharge, one row per VM and slot). A VM the budget cannot pay the
  next slot for is stopped, and none is started: what pre-warming costs a UTC day is at most the
  budget, whatever the forecast says. Charging ahead for whole slots overstates what a VM costs; it
  never understates it, as long as the reaper passes every slot.
- From 80 % of the credit used it keeps nothing (speculative spend is the first to go); at the hard
  stop no policy keeps a VM.
Reads only: fleets.services writes the charges, starts the VMs and records each start's reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from django.db.models import Sum

from fleets.forecast import SLOT, Forecast, slot_start
from fleets.models import Pool, PoolPolicy, PrewarmCharge, PrewarmDecision, VMInstance, VMState

HOLD_MIN_CHANCE = 0.25  # of a submission within the horizon, that keeps one VM ready
BUSY_SHARE = 0.35  # the load per VM above which the forecast keeps one more
STOPS_AT_PCT = Decimal(80)
REAPER_PERIOD_S = 60  # a slot's charge covers a reaper pass that comes up to this late
MICRO = Decimal("0.000001")


def forecast_on(pool: Pool) -> bool:
    return bool(pool.forecast_prewarm) and pool.policy_in_effect == PoolPolicy.ADAPTIVE and pool.enabled


def horizon_s(cold_start_s: float) -> float:
    """What a start decided now must see: the cold start it takes, and the slot until the next look."""
    return cold_start_s + SLOT.total_seconds()


def forecast_vms(*, pool: Pool, forecast: Forecast, mean_job_s: float, ceiling: int) -> int:
    used = pool.credit_used_pct
    if used is not None and used >= STOPS_AT_PCT:
        return 0
    if forecast.chance < HOLD_MIN_CHANCE:
        return 0
    load = forecast.per_h / 3600 * mean_job_s
    return min(max(1, math.ceil(load / BUSY_SHARE)), ceiling)


def slot_charge(*, pool: Pool, vm: VMInstance | None = None) -> Decimal:
    """What one slot of a VM kept ahead of demand is charged: the VM's own price where its backend
    reported a higher one than the pool's rate."""
    rate = pool.hourly_rate
    raw = (vm.agent_info or {}).get("price_per_hour") if vm is not None and isinstance(vm.agent_info, dict) else None
    try:
        rate = max(rate, Decimal(str(raw))) if raw is not None else rate
    except ArithmeticError:
        pass
    seconds = Decimal(int(SLOT.total_seconds()) + REAPER_PERIOD_S)
    return (seconds * rate / 3600).quantize(MICRO)


def spent_today(*, pool: Pool, now: datetime) -> Decimal:
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    today = PrewarmCharge.objects.filter(pool=pool, slot__gte=midnight, slot__lt=midnight + timedelta(days=1))
    total = today.aggregate(total=Sum("amount"))["total"]
    return total or Decimal(0)


@dataclass
class Budgeted:
    """What the budget lets the forecast keep in the current slot."""

    charge: list[VMInstance] = field(default_factory=list)  # kept: charge them for this slot
    stop: list[VMInstance] = field(default_factory=list)  # the budget cannot pay for them
    starts: int = 0  # VMs it may start (each charged for this slot)
    left: Decimal = Decimal(0)


def budget_slot(*, pool: Pool, live: list[VMInstance], held: list[VMInstance], starts: int,
                now: datetime) -> Budgeted:
    """Which of the VMs kept by the forecast alone (`held`, and its unused starts among `live`) and how
    many of `starts` the pool's daily budget pays for this slot. Unused starts come first, then the VMs
    held longest idle first, then new starts."""
    slot = slot_start(now)
    started = set(PrewarmDecision.objects.filter(vm__in=[vm.pk for vm in live]).values_list("vm_id", flat=True))
    unused = [vm for vm in live if vm.pk in started and vm.jobs_started == 0 and vm not in held
              and vm.state in (VMState.PROVISIONING, VMState.WARM)]
    wanted = [*unused, *held]
    if not wanted and not starts:
        return Budgeted()
    paid = set(PrewarmCharge.objects.filter(slot=slot, vm__in=[vm.pk for vm in wanted]).values_list("vm_id", flat=True))
    result = Budgeted(left=Decimal(pool.prewarm_budget_usd) - spent_today(pool=pool, now=now))
    for vm in wanted:
        if vm.pk in paid:
            continue
        cost = slot_charge(pool=pool, vm=vm)
        if cost <= result.left:
            result.charge.append(vm)
            result.left -= cost
        else:
            result.stop.append(vm)
    cost = slot_charge(pool=pool)
    while result.starts < starts and cost <= result.left:
        result.starts += 1
        result.left -= cost
    return result

"""Reads about pools and VMs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, QuerySet

from fleets.forecast import Forecast, demand_forecast
from fleets.models import LIVE_VM_STATES, Pool, PrewarmDecision, VMInstance, VMState
from fleets.policy import pool_snapshot, vm_ceiling
from fleets.prewarm import forecast_on, forecast_vms, horizon_s, spent_today


def pool_get(*, name: str) -> Pool | None:
    return Pool.objects.filter(name=name).first()


def pool_list(*, enabled_only: bool = True) -> QuerySet[Pool]:
    qs = Pool.objects.all()
    if enabled_only:
        qs = qs.filter(enabled=True)
    return qs.annotate(
        warm_vms=Count("vms", filter=Q(vms__state=VMState.WARM)),
        live_vms=Count("vms", filter=Q(vms__state__in=LIVE_VM_STATES)),
    ).order_by("name")


def vm_list_live(*, pool: Pool | None = None) -> QuerySet[VMInstance]:
    qs = VMInstance.objects.filter(state__in=LIVE_VM_STATES).select_related("pool")
    return qs.filter(pool=pool) if pool is not None else qs


@dataclass(frozen=True)
class PrewarmOverview:
    """A forecast pool as the cost dashboard and the admin show it."""

    pool: Pool
    forecast: Forecast
    vms_wanted: int
    spent_today: Decimal
    budget: Decimal
    decisions: list[PrewarmDecision]


def prewarm_overview(*, now: datetime, decisions: int = 10, pools: list[Any] | None = None) -> list[PrewarmOverview]:
    """Each pool that pre-warms from its forecast: what it expects now, what it would keep ready, what
    pre-warming spent today against its budget, and its latest starts with their reasons."""
    out = []
    chosen = Pool.objects.filter(forecast_prewarm=True).order_by("name")
    for pool in chosen.filter(pk__in=pools) if pools is not None else chosen:
        snapshot = pool_snapshot(pool=pool, now=now)
        forecast = demand_forecast(pool=pool, now=now, horizon_s=horizon_s(snapshot.cold_start_s))
        wanted = forecast_vms(pool=pool, forecast=forecast, mean_job_s=snapshot.mean_job_s,
                              ceiling=vm_ceiling(pool=pool)) if forecast_on(pool) else 0
        out.append(PrewarmOverview(
            pool=pool, forecast=forecast, vms_wanted=wanted, spent_today=spent_today(pool=pool, now=now),
            budget=pool.prewarm_budget_usd,
            decisions=list(PrewarmDecision.objects.filter(pool=pool).select_related("vm")[:decisions])))
    return out

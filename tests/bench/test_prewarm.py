"""Pre-warming from the forecast in the cost simulator (bench/costsim.py): the simulator leaks no
arrival to the forecast before it happens, and a forecast that is wrong costs at most the pool's
pre-warm budget."""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.db.models import Sum

from bench.sim.engine import Engine
from bench.sim.measure import figures
from bench.sim.specs import CloudSpec, PolicySpec
from bench.sim.traces import HOUR, TRACE_START, Arrival, DeclaredEvent, JobLengths, Trace, steady
from billing.models import LedgerEntry, Source
from fleets.forecast import demand_forecast
from fleets.models import Pool, PrewarmCharge, PrewarmDecision

pytestmark = [pytest.mark.usefixtures("problems_loaded"), pytest.mark.slow]
CLOUD = CloudSpec(cold_start_s=(300, 420), tail_s=HOUR)


def forecast_policy(budget: str) -> PolicySpec:
    return PolicySpec("forecast", "adaptive", forecast=True, prewarm_budget=Decimal(budget))


def test_the_forecast_sees_no_arrival_before_it_happens(transactional_db: Any) -> None:
    """Two traces equal for their first three hours, one with a rush after: every forecast the pool made,
    every VM it started and every pre-warm charge before the rush are the same in both runs (and the
    forecasts differ once it has come)."""
    split = 3 * HOUR
    calm = steady(rng=random.Random(5), lengths=JobLengths(), span_s=split, rate_per_h=6, users=5).arrivals
    rush = [Arrival(split + 10 + 40 * i, i % 5, "vector-add", "check", 20.0) for i in range(30)]
    event = (DeclaredEvent("office hours", HOUR, 2 * HOUR, 100),)  # 3 VMs wanted ready: starts to compare
    traces = {"without": Trace("without", TRACE_START, 5 * HOUR, calm, "calm", events=event),
              "with": Trace("with", TRACE_START, 5 * HOUR, [*calm, *rush], "calm, then a rush", events=event)}
    for name, trace in traces.items():
        Engine(trace, forecast_policy("50"), CLOUD, pool=name).execute()
        Pool.objects.filter(name=name).update(enabled=False)  # its reaper passes end with its run
    cut = TRACE_START + timedelta(seconds=split)

    def decisions(pool: str, *, before: bool) -> list[tuple[Any, ...]]:
        rows = PrewarmDecision.objects.filter(pool__name=pool)
        rows = rows.filter(at__lt=cut) if before else rows.filter(at__gte=cut)
        return list(rows.order_by("at").values_list("at", "expected", "vms_wanted", "reason"))

    assert decisions("without", before=True) == decisions("with", before=True) != []

    def charges(pool: str) -> list[tuple[Any, ...]]:
        return sorted(PrewarmCharge.objects.filter(pool__name=pool, slot__lt=cut).values_list("slot", "amount"))

    assert charges("without") == charges("with") != []
    pools = {name: Pool.objects.get(name=name) for name in traces}
    for minutes in range(0, int(split // 60), 7):
        at = TRACE_START + timedelta(minutes=minutes)
        seen = [demand_forecast(pool=pools[name], now=at, horizon_s=660) for name in traces]
        assert seen[0] == seen[1], at
    after = [demand_forecast(pool=pools[name], now=cut + timedelta(minutes=30), horizon_s=660) for name in traces]
    assert after[0].expected < after[1].expected  # the rush, once it has come


def test_a_contest_that_never_comes_costs_at_most_the_pre_warm_budget(transactional_db: Any) -> None:
    """Staff declare a huge contest (1000 submissions an hour for 4 hours) and nobody submits: all the
    pool's spend is pre-warming's, and it stays within the day's budget."""
    budget = Decimal("3")
    nobody = Trace("no-contest", TRACE_START, 6 * HOUR, [], "a declared contest, no submission",
                   events=(DeclaredEvent("the big contest", HOUR, 5 * HOUR, 1000),))
    run = Engine(nobody, forecast_policy(str(budget)), CLOUD, pool="no-contest").execute()
    result = figures(run)
    spent = LedgerEntry.objects.filter(pool__name="no-contest", source=Source.ACCRUAL).aggregate(
        total=Sum("amount"))["total"]
    charged = PrewarmCharge.objects.filter(pool__name="no-contest").aggregate(total=Sum("amount"))["total"]
    assert PrewarmDecision.objects.filter(pool__name="no-contest").count() == 3  # it did believe the forecast
    assert 0 < spent <= charged <= budget
    assert abs(result.cost_usd - result.cloud_bill_usd) < Decimal("0.01")  # what the simulated cloud billed

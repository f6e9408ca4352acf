"""What a simulated run cost and how long its users waited, read from the rows the platform's code
wrote: the ledger (cost, busy and idle time), the VMs (cold starts), the submissions (waits)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Q, Sum

from bench.sim.engine import Run
from bench.sim.optimum import offline_optimum_usd
from bench.sim.specs import Sample
from billing.amounts import ZERO, cost_of
from billing.models import LedgerEntry, Phase, Source
from fleets.backends.sim import sim_cloud_bill
from fleets.models import LIVE_VM_STATES, Pool, VMInstance
from submissions.models import SUCCESS_STATUSES, Status, Submission


@dataclass(frozen=True)
class Figures:
    trace: str
    policy: str
    cost_usd: Decimal  # the ledger's accruals for the pool
    lower_bound_usd: Decimal  # busy seconds x rate
    optimum_usd: Decimal  # the clairvoyant offline optimum of the trace (bench/sim/optimum.py)
    cloud_bill_usd: Decimal  # what the simulated cloud charged (must equal the ledger)
    idle_share: float  # of all VM time, warm and waiting
    cold_starts: int  # VMs started
    jobs: int
    done: int  # jobs that ran to their result
    rejected: int  # ended REJECTED or ERROR (no capacity, waited too long)
    unfinished: int  # still queued or running when the run ended
    p50_wait_s: float  # submitted -> job started on a VM
    p95_wait_s: float
    p95_result_s: float  # submitted -> result
    wall_s: float
    cpu_s: float

    @property
    def cost_ratio(self) -> float:
        return float(self.cost_usd / self.lower_bound_usd) if self.lower_bound_usd > 0 else math.inf

    @property
    def optimum_ratio(self) -> float:
        return float(self.cost_usd / self.optimum_usd) if self.optimum_usd > 0 else math.inf

    def as_json(self) -> dict[str, Any]:
        return {"trace": self.trace, "policy": self.policy, "cost_usd": float(self.cost_usd),
                "lower_bound_usd": float(self.lower_bound_usd), "cost_ratio": round(self.cost_ratio, 3),
                "offline_optimum_usd": float(self.optimum_usd), "optimum_ratio": round(self.optimum_ratio, 3),
                "cloud_bill_usd": float(self.cloud_bill_usd), "idle_share": round(self.idle_share, 4),
                "cold_starts": self.cold_starts, "jobs": self.jobs, "done": self.done, "rejected": self.rejected,
                "unfinished": self.unfinished, "p50_wait_s": round(self.p50_wait_s, 1),
                "p95_wait_s": round(self.p95_wait_s, 1), "p95_result_s": round(self.p95_result_s, 1),
                "wall_s": round(self.wall_s, 1), "cpu_s": round(self.cpu_s, 1)}


def percentile(values: list[float], q: float) -> float:
    """Nearest rank: the smallest value with at least q % of the values at or below it."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def _accruals(pool: Pool) -> Any:
    return LedgerEntry.objects.filter(pool=pool, source=Source.ACCRUAL)


def sample_now(*, pool: Pool, start: datetime, now: datetime) -> Sample:
    spend = _accruals(pool).aggregate(total=Sum("amount"))["total"] or ZERO
    return Sample(at_s=(now - start).total_seconds(),
                  vms_up=VMInstance.objects.filter(pool=pool, state__in=LIVE_VM_STATES).count(),
                  queued=Submission.objects.filter(pool=pool, status=Status.IN_QUEUE).count(),
                  spend_usd=float(spend))


def figures(run: Run) -> Figures:
    pool, end = run.pool, run.end
    assert pool is not None and end is not None
    sums = _accruals(pool).aggregate(
        cost=Sum("amount"), all_s=Sum("seconds"), busy_s=Sum("seconds", filter=Q(phase=Phase.BUSY)),
        idle_s=Sum("seconds", filter=Q(phase=Phase.IDLE)))
    busy_s, all_s = sums["busy_s"] or Decimal(0), sums["all_s"] or Decimal(0)
    rows = list(Submission.objects.filter(pool=pool).values_list("status", "created_at", "started_at",
                                                                   "finished_at"))
    done = [(created, started, finished) for status, created, started, finished in rows if status in SUCCESS_STATUSES]
    waits = [(started - created).total_seconds() for created, started, _ in done]
    results = [(finished - created).total_seconds() for created, _, finished in done]
    return Figures(
        trace=run.trace.name, policy=run.policy.name, cost_usd=(sums["cost"] or ZERO).quantize(ZERO),
        lower_bound_usd=cost_of(busy_s, pool.hourly_rate), optimum_usd=offline_optimum_usd(run.trace, run.cloud),
        cloud_bill_usd=sim_cloud_bill(pool_name=pool.name, now=end),
        idle_share=float((sums["idle_s"] or 0) / all_s) if all_s else 0.0,
        cold_starts=VMInstance.objects.filter(pool=pool).count(), jobs=len(run.trace.arrivals), done=len(done),
        rejected=sum(status in (Status.REJECTED, Status.ERROR) for status, *_ in rows) + run.refused,
        unfinished=sum(finished is None for *_, finished in rows),
        p50_wait_s=percentile(waits, 50), p95_wait_s=percentile(waits, 95), p95_result_s=percentile(results, 95),
        wall_s=run.wall_s, cpu_s=run.cpu_s)

"""The clairvoyant offline optimum of a trace: what serving it would cost a pool that knew every
arrival in advance and let no job wait (ski rental, offline).

Such a pool starts a VM a cold start ahead of each job that needs one, and after each job either
keeps the VM idle until the next job (paying the gap) or stops it and starts another in time
(paying a cold start of billed provisioning): per gap, min(gap, cold start). Cold starts are drawn
from the simulated cloud's distribution (uniform low-high), and the pool is charged their expected
cost: E[min(gap, C)] for each gap, E[C] for the first start.

Gaps are those of the union of the jobs' busy intervals (each job from its arrival, for its
length): jobs that overlap are served by VMs of their own, whose extra cold starts are not
counted, so with overlaps this is a lower bound on the zero-wait optimum (exact without them). A
policy can cost less than this only by making jobs wait.
"""

from __future__ import annotations

from decimal import Decimal

from bench.sim.specs import CloudSpec
from bench.sim.traces import Trace
from billing.amounts import cost_of


def expected_min(gap: float, low: float, high: float) -> float:
    """E[min(gap, C)] for C uniform on [low, high] (C = low = high when the range is a point)."""
    if gap <= low:
        return gap
    if gap >= high:
        return (low + high) / 2
    # C below the gap (probability (gap-low)/(high-low), mean (low+gap)/2), else the gap.
    below = (gap - low) / (high - low)
    return below * (low + gap) / 2 + (1 - below) * gap


def offline_seconds(trace: Trace, cold_start_s: tuple[float, float]) -> float:
    """VM-seconds of the offline optimum: busy seconds, one cold start, then min(gap, C) per gap."""
    if not trace.arrivals:
        return 0.0
    low, high = cold_start_s
    jobs = sorted((a.at_s, a.at_s + a.duration_s) for a in trace.arrivals)
    total = sum(end - start for start, end in jobs) + (low + high) / 2
    busy_until = jobs[0][1]
    for start, end in jobs[1:]:
        if start > busy_until:
            total += expected_min(start - busy_until, low, high)
        busy_until = max(busy_until, end)
    return total


def offline_optimum_usd(trace: Trace, cloud: CloudSpec) -> Decimal:
    return cost_of(Decimal(str(offline_seconds(trace, cloud.cold_start_s))), cloud.rate)

"""What a simulated run is asked to simulate (no Django here: the command line builds these first)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from bench.sim.traces import HOUR


@dataclass(frozen=True)
class PolicySpec:
    name: str  # as the table shows it, e.g. fixed-10
    policy: str  # fleets.models.PoolPolicy
    idle_timeout_s: int = 600
    min_vms: int = 0
    prewarm_hours: str = ""
    max_vms: int | None = None  # the cloud's max_vms unless the policy is "n VMs always on"
    forecast: bool = False  # pre-warm from the pool's forecast (fleets.prewarm)
    prewarm_budget: Decimal = Decimal("60")  # USD a UTC day the forecast's pre-warming may spend


@dataclass(frozen=True)
class CloudSpec:
    cold_start_s: tuple[float, float] = (300.0, 420.0)
    no_capacity_rate: float = 0.0
    rate: Decimal = Decimal("1.99")
    max_vms: int = 3
    seed: int = 1
    credit: Decimal = Decimal("1400")
    credit_used_pct: Decimal = Decimal(0)  # of the credit spent before the trace starts
    billing_every: int = 15  # minutes between runs of billing's periodic accrual
    tail_s: float = 2 * HOUR  # simulated after the trace's span, for queues and idle VMs to wind down


@dataclass(frozen=True)
class Sample:
    at_s: float
    vms_up: int
    queued: int
    spend_usd: float

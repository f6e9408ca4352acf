"""The simulator's backend: a cloud that is not there, with a price.

Each VM's cold start is drawn from the pool's distribution (`config.cold_start_s`: seconds, or
[low, high] drawn uniformly; 30 s by default), and a share of starts fail for want of capacity
(`config.no_capacity_rate`, found out `config.no_capacity_after_s` after the request, as dstack
would). What the VM costs is the pool's hourly rate. Draws are seeded (`config.seed`) by the
moment the VM was requested, so two policies (or pools) replaying one trace see the same cold start
for a VM started at the same moment.

Two ways to run it:
- `config.agent == "local"` (what `manage.py fleet init NAME --backend sim` makes): provision()
  waits out the cold start on the wall clock, then starts a real local agent (the host device), so
  jobs are judged for real while staff watch the billing, the 80 % alert and the hard stop.
- `config.agent == "none"` (bench/costsim.py): no agent at all; the simulator plays the jobs on its
  simulated clock and calls provision() only once the cold start is over.

The simulated cloud keeps its own bill in this process (`sim_cloud_bill`): each VM from its
request to its stop or failure, at the pool's rate, which the simulator checks against the ledger.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from core import clock
from fleets.backends.base import CapacityError, Orphan, Provisioned, ProvisionError
from fleets.backends.local import LocalBackend
from fleets.models import Pool, VMInstance

DEFAULT_COLD_START_S = 30.0
DEFAULT_NO_CAPACITY_AFTER_S = 60.0


@dataclass(frozen=True)
class ColdStart:
    seconds: float  # until the VM is ready, or until the failure is known
    no_capacity: bool


@dataclass
class _Lifetime:
    pool: str
    start: datetime
    rate: Decimal
    end: datetime | None = None


# Process-wide: a VM's draw is made once, and the bill spans every backend object of the process.
_plans: dict[str, ColdStart] = {}
_same_instant: Counter[tuple[str, str]] = Counter()
_bill: dict[str, _Lifetime] = {}


def _config(pool: Pool) -> dict[str, Any]:
    return pool.config if isinstance(pool.config, dict) else {}


def sim_settings_error(config: dict[str, Any]) -> str | None:
    """What is wrong with a simulated pool's config, as a sentence; None when it is usable."""
    cold = config.get("cold_start_s", DEFAULT_COLD_START_S)
    bounds = cold if isinstance(cold, list) else [cold, cold]
    if len(bounds) != 2 or not all(isinstance(b, int | float) and b >= 0 for b in bounds) or bounds[0] > bounds[1]:
        return "cold_start_s: give seconds (e.g. 30) or [low, high] seconds (e.g. [300, 420])."
    rate = config.get("no_capacity_rate", 0)
    if not isinstance(rate, int | float) or not 0 <= rate <= 1:
        return "no_capacity_rate: give a share between 0 and 1 (e.g. 0.05)."
    if config.get("agent", "local") not in ("local", "none"):
        return 'agent: "local" (jobs run on a local agent) or "none" (the cost simulator plays them).'
    return None


def _seconds(delta: timedelta) -> Decimal:
    return Decimal(delta.days * 86400 + delta.seconds) + Decimal(delta.microseconds) / Decimal(1_000_000)


def sim_cloud_bill(*, pool_name: str, now: datetime | None = None) -> Decimal:
    """What the simulated cloud charges for the pool's VMs so far (running ones up to `now`), in USD
    rounded to the ledger's 6 places once, on the total."""
    now = now or clock.now()
    total = sum((_seconds((life.end or now) - life.start) * life.rate / 3600
                 for life in _bill.values() if life.pool == pool_name), Decimal(0))
    return total.quantize(Decimal("0.000001"))


def sim_forget(*, pool_name: str) -> None:
    """Drop a pool's draws and bill (the simulator starts each run afresh)."""
    for vm_id in [k for k, life in _bill.items() if life.pool == pool_name]:
        del _bill[vm_id]
        _plans.pop(vm_id, None)
    for key in [k for k in _same_instant if k[0] == pool_name]:
        del _same_instant[key]


class SimBackend:
    kind = "sim"

    def __init__(self) -> None:
        self._local = LocalBackend()

    def agent_headers(self, vm: VMInstance) -> dict[str, str]:
        return {}

    def cold_start_plan(self, vm: VMInstance) -> ColdStart:
        """The VM's cold start (drawn once per VM): how long, and whether it fails for no capacity."""
        key = str(vm.pk)
        if key not in _plans:
            config = _config(vm.pool)
            instant = (vm.pool.name, vm.created_at.isoformat())
            _same_instant[instant] += 1
            rng = random.Random(f"{config.get('seed', 0)}|{instant[1]}|{_same_instant[instant]}")
            cold = config.get("cold_start_s", DEFAULT_COLD_START_S)
            low, high = (cold if isinstance(cold, list) else [cold, cold])
            seconds = rng.uniform(float(low), float(high))
            if rng.random() < float(config.get("no_capacity_rate", 0)):
                after = float(config.get("no_capacity_after_s", DEFAULT_NO_CAPACITY_AFTER_S))
                _plans[key] = ColdStart(seconds=min(after, seconds), no_capacity=True)
            else:
                _plans[key] = ColdStart(seconds=seconds, no_capacity=False)
            _bill.setdefault(key, _Lifetime(pool=vm.pool.name, start=vm.created_at, rate=vm.pool.hourly_rate))
        return _plans[key]

    def provision(self, vm: VMInstance) -> Provisioned:
        plan = self.cold_start_plan(vm)
        remaining = plan.seconds - (clock.now() - vm.created_at).total_seconds()
        if remaining > 0.001:  # (times are kept to the microsecond)
            if clock.is_simulated():
                raise RuntimeError(f"VM {vm.pk} provisioned {remaining:.1f} s before its simulated cold start ends")
            time.sleep(remaining)
        if plan.no_capacity:
            raise CapacityError(f"No {vm.pool.gpu_name or 'VM'} capacity on the simulated cloud right now (a "
                                f"simulated failure, {_config(vm.pool).get('no_capacity_rate')} of starts); try "
                                "again later.")
        info: dict[str, Any] = {"simulated": True, "cold_start_s": round(plan.seconds, 1)}
        if _config(vm.pool).get("agent", "local") == "none":
            return Provisioned(base_url=f"sim://{vm.pk}", handle=f"sim-{str(vm.pk)[:8]}", agent_info=info)
        try:
            started = self._local.provision(vm)
        except ProvisionError as exc:
            raise ProvisionError(f"The simulated pool's local agent did not start: {exc}") from exc
        return Provisioned(base_url=started.base_url, pid=started.pid, handle=started.handle,
                           agent_info={**started.agent_info, **info})

    def _agentless(self, vm: VMInstance) -> bool:
        return _config(vm.pool).get("agent", "local") == "none"

    def is_alive(self, vm: VMInstance) -> bool:
        return True if self._agentless(vm) else self._local.is_alive(vm)

    def gone_reason(self, vm: VMInstance) -> str:
        return self._local.gone_reason(vm)

    def stop(self, vm: VMInstance) -> None:
        if not self._agentless(vm):
            self._local.stop(vm)
        life = _bill.get(str(vm.pk))
        if life is not None and life.end is None:
            life.end = clock.now()  # once the agent is gone, as a cloud bills until the instance is

    def find_orphans(self, pool: Pool, live_vm_ids: set[str]) -> list[Orphan]:
        return [] if _config(pool).get("agent", "local") == "none" else self._local.find_orphans(pool, live_vm_ids)

    def kill_orphan(self, pool: Pool, orphan: Orphan) -> None:
        self._local.kill_orphan(pool, orphan)

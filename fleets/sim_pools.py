"""A simulated pool that runs for real (opt in): `manage.py fleet init demo --backend sim`.

Jobs are judged by a real local agent on the host device; the VM around it is simulated
(fleets.backends.sim): each start waits out a drawn cold start (30 s by default), a share of starts
can fail for no capacity, and every second is billed at the pool's price. On a laptop, staff can
watch the ledger grow, the 80 % alert fire and the hard stop hold, with no cloud account.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError

from fleets.backends.sim import DEFAULT_COLD_START_S, sim_settings_error
from fleets.models import Backend, Device, Pool, PoolPolicy


def pool_sim_ensure(*, name: str, hourly_rate: Decimal = Decimal("1.99"), max_vms: int = 1,
                     cold_start_s: float = DEFAULT_COLD_START_S, no_capacity_rate: float = 0.0,
                     idle_timeout_s: int = 600, policy: str = PoolPolicy.DEFAULT,
                     insecure_no_sandbox: bool = False) -> tuple[Pool, bool]:
    """Create or update a simulated pool; a bad value is a ValidationError naming it."""
    if hourly_rate < 0:
        raise ValidationError("rate: a price cannot be negative.")
    if max_vms < 1:
        raise ValidationError("max VMs: at least 1.")
    config: dict[str, Any] = {"agent": "local", "cold_start_s": cold_start_s, "no_capacity_rate": no_capacity_rate}
    if insecure_no_sandbox:
        config["insecure_no_sandbox"] = True
    problem = sim_settings_error(config)
    if problem:
        raise ValidationError(problem)
    return Pool.objects.update_or_create(name=name, defaults={
        "backend": Backend.SIM, "device": Device.HOST, "gpu_name": "", "gpu_count": 0, "max_vms": max_vms,
        "hourly_rate": hourly_rate, "idle_timeout_s": idle_timeout_s, "policy": policy,
        "provision_timeout_s": int(cold_start_s) + 120, "config": config, "enabled": True,
        "title": f"Simulated GPU pool ({hourly_rate} USD/h, {cold_start_s:g} s cold starts)",
    })

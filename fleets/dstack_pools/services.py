"""Staff operations on dstack pools (plan, apply, verify, delete, instances) and the stray-run
sweep. Admin actions and `manage.py fleet` call these and nothing else.

Every failure is a fleets.dstack DstackError whose text says what to do; callers show str(error).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction

from fleets.dstack import (
    Difference,
    DstackClient,
    DstackError,
    FleetInstance,
    FleetPlan,
    FleetState,
    ServerCheck,
    apply_fleet,
    delete_fleet,
    list_fleet_instances,
    list_vm_runs,
    plan_fleet,
    stop_run,
    verify_fleet,
    vm_run_name,
)
from fleets.dstack_pools.config import (
    DSTACK_DEFAULTS,
    dstack_client,
    dstack_configured,
    dstack_fleet_settings,
    vm_run_settings,
)
from fleets.models import LIVE_VM_STATES, Backend, Device, Pool, VMInstance, VMState
from fleets.services import vm_stop

log = logging.getLogger(__name__)


class FleetInUseError(DstackError):
    def __init__(self, pool: str, in_use: int) -> None:
        super().__init__(
            f"Pool {pool} has {in_use} VM(s) starting or serving a submission; its dstack fleet was not deleted.",
            "Drain them first (admin > VM instances > Drain) and retry once they are stopped.",
        )


@dataclass(frozen=True)
class PlanReport:
    server: ServerCheck
    plan: FleetPlan


def _require_dstack(pool: Pool) -> None:
    dstack_fleet_settings(pool)  # raises PoolConfigError for a local pool or a bad config


def dstack_fleet_plan(*, pool: Pool) -> PlanReport:
    """The dry run: server checks (reachable, version, token, project), the YAML and dstack's plan."""
    settings = dstack_fleet_settings(pool)
    client = dstack_client()
    return PlanReport(server=client.check(), plan=plan_fleet(client, settings))


def dstack_fleet_apply(*, pool: Pool, recreate: bool = False, require_backends: bool = True) -> FleetState:
    """Create or update the pool's backend fleet, then verify that dstack has it as we asked."""
    settings = dstack_fleet_settings(pool)
    client = dstack_client()
    client.check()
    state = apply_fleet(client, settings, recreate=recreate, require_backends=require_backends)
    log.info("applied dstack fleet %s: %s (%s)", pool.name, state.action, state.status)
    return state


def dstack_fleet_verify(*, pool: Pool) -> list[Difference]:
    """Differences between dstack's fleet and the pool's settings (empty: in sync);
    FleetMissingError when dstack has no such fleet."""
    return verify_fleet(dstack_client(), dstack_fleet_settings(pool))


def dstack_fleet_delete(*, pool: Pool, force: bool = False, wait_s: float = 30.0) -> str:
    """Delete the backend fleet: refused while a VM of the pool starts or serves work; warm VMs are
    stopped first, and the pool stops taking submissions. Returns "gone", or "terminating" when
    dstack is still tearing it down after `wait_s`."""
    _require_dstack(pool)
    client = dstack_client()
    in_use = VMInstance.objects.filter(pool=pool, state__in=(VMState.PROVISIONING, VMState.BUSY)).count()
    in_use += VMInstance.objects.filter(pool=pool, state=VMState.DRAINING).exclude(job_ref="").count()
    if in_use and not force:
        raise FleetInUseError(pool.name, in_use)
    Pool.objects.filter(pk=pool.pk).update(enabled=False)
    for vm in VMInstance.objects.filter(pool=pool, state=VMState.WARM).select_related("pool"):
        vm_stop(vm=vm, reason=f"Its dstack fleet {pool.name} is being deleted.")
    result = delete_fleet(client, pool.name, force=force, wait_s=wait_s)
    log.warning("deleted dstack fleet %s (%s); pool disabled", pool.name, result)
    return result


def dstack_fleet_instances(*, pool: Pool, client: DstackClient | None = None) -> list[FleetInstance]:
    _require_dstack(pool)
    return list_fleet_instances(client or dstack_client(), pool.name)


def pool_dstack_ensure(*, name: str, backends: list[str], image: str = "", max_vms: int = 1,
                        hourly_rate: Decimal = Decimal("1.99"), idle_timeout_s: int = 600,
                        provision_timeout_s: int = 900, gpu_name: str = "MI300X", gpu_count: int = 1,
                        config: dict[str, Any] | None = None, title: str = "") -> tuple[Pool, bool]:
    """Create or update a dstack pool row (HIP on MI300X by default) and check its settings."""
    values = {**(config or {}), "backends": list(backends)}
    if image:
        values["image"] = image
    with transaction.atomic():
        pool, created = Pool.objects.update_or_create(name=name, defaults={
            "backend": Backend.DSTACK, "device": Device.HIP, "gpu_name": gpu_name, "gpu_count": gpu_count,
            "max_vms": max_vms, "hourly_rate": hourly_rate, "idle_timeout_s": idle_timeout_s,
            "provision_timeout_s": provision_timeout_s, "config": values,
            "title": title or f"{gpu_name} on {', '.join(backends)}",
        })
        dstack_fleet_settings(pool)  # a bad value rolls the row back
        if values.get("image"):
            probe = VMInstance(pool=pool, token="probe")  # unsaved: validates the run settings only
            vm_run_settings(probe)
    return pool, created


def pool_dstack_effective(*, pool: Pool) -> dict[str, Any]:
    """What the admin shows: the defaults each unset key falls back to."""
    return {key: (pool.config or {}).get(key, default) for key, default in DSTACK_DEFAULTS.items()}


# ---- runs nobody owns ----------------------------------------------------------------------------
def dstack_stray_runs_stop() -> int:
    """Stop every active `hj-vm-` run that no live VM row owns, on any dstack fleet (a run on a
    fleet that has no pool row is invisible to the per-pool reconcile). Returns how many."""
    if not dstack_configured() or not Pool.objects.filter(backend=Backend.DSTACK).exists():
        return 0
    live = {vm_run_name(pk) for pk in VMInstance.objects.filter(
        pool__backend=Backend.DSTACK, state__in=LIVE_VM_STATES).values_list("pk", flat=True)}
    pools = set(Pool.objects.filter(backend=Backend.DSTACK).values_list("name", flat=True))
    client = dstack_client()
    stopped = 0
    for run in list_vm_runs(client):
        if run.fleet in pools or run.name in live or run.status == "terminating":
            continue  # a pool's own runs are the per-pool reconcile's (fleets.services.vms_reconcile)
        log.warning("reconcile: stopping stray dstack run %s (%s) on fleet %s", run.name, run.status, run.fleet)
        stop_run(client, run.name)
        stopped += 1
    return stopped

"""django-q2 entry points for fleets: thin wrappers, safe to run twice, scheduled by setup_schedules."""

from __future__ import annotations

import logging

from fleets.services import vm_jobs_prune, vm_prestarted_provision, vm_reap_idle, vms_reconcile

log = logging.getLogger(__name__)

# Collected by `manage.py setup_schedules`: name -> (function, minutes between runs).
SCHEDULES = {
    "fleets: reap idle VMs": ("fleets.tasks.reap_idle", 1),
    "fleets: reconcile VMs with reality": ("fleets.tasks.reconcile", 2),
    "fleets: prune the job log": ("fleets.tasks.prune_jobs", 60),
}


def reap_idle() -> int:
    return vm_reap_idle()


def prune_jobs() -> int:
    return vm_jobs_prune()


def provision(vm_id: str) -> None:
    """Start a VM the pool's policy started ahead of demand (no job is bound to it)."""
    vm_prestarted_provision(vm_id=vm_id)


def reconcile() -> dict[str, int]:
    from fleets.dstack_pools.services import dstack_stray_runs_stop  # imports dstack's client: only when run

    result = vms_reconcile()
    try:
        result["stray_runs_stopped"] = dstack_stray_runs_stop()
    except Exception:  # dstack unreachable: the pools' own reconcile above still ran
        log.exception("stopping stray dstack runs")
    return result

"""django-q2 entry points for fleets: thin wrappers, safe to run twice, scheduled by setup_schedules."""

from __future__ import annotations

import logging

from fleets.services import vm_reap_idle, vms_reconcile

log = logging.getLogger(__name__)


def reap_idle() -> int:
    return vm_reap_idle()


def reconcile() -> dict[str, int]:
    from fleets.dstack_services import dstack_stray_runs_stop  # imports dstack's client: only when run

    result = vms_reconcile()
    try:
        result["stray_runs_stopped"] = dstack_stray_runs_stop()
    except Exception:  # dstack unreachable: the pools' own reconcile above still ran
        log.exception("stopping stray dstack runs")
    return result

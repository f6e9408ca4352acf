"""django-q2 entry points for fleets: thin wrappers, safe to run twice, scheduled by setup_schedules."""

from __future__ import annotations

from fleets.services import vm_reap_idle, vms_reconcile


def reap_idle() -> int:
    return vm_reap_idle()


def reconcile() -> dict[str, int]:
    return vms_reconcile()

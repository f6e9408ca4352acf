"""django-q2 entry points for billing: thin, safe to run twice, scheduled by setup_schedules."""

from __future__ import annotations

from billing.alerts import budget_check, budget_enforce
from billing.reconcile import reconcile_dstack_pools
from billing.selectors import budget_status
from billing.services import ledger_accrue_all


def accrue() -> dict[str, int]:
    """Every minute: book VM time, fire alerts, apply the hard stop."""
    booked = ledger_accrue_all()
    status = budget_status()
    alerts = budget_check(status=status)
    stopped = budget_enforce(status=status)
    return {"entries": booked, "alerts": len(alerts), "vms_stopped": stopped}


def reconcile() -> dict[str, int]:
    return reconcile_dstack_pools()

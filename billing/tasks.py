"""django-q2 entry points for billing: thin, safe to run twice, scheduled by setup_schedules."""

from __future__ import annotations

from billing.alerts import budget_check
from billing.hard_stop import budget_enforce, pools_credit_note
from billing.reconcile import pools_reconcile
from billing.selectors import budget_status
from billing.services import ledger_accrue_all

# Collected by `manage.py setup_schedules`: name -> (function, minutes between runs).
SCHEDULES = {
    "billing: accrue VM time, alerts, hard stop": ("billing.tasks.accrue", 1),
    "billing: reconcile dstack pools (yesterday)": ("billing.tasks.reconcile", 60),
}


def accrue() -> dict[str, int]:
    """Every minute: book VM time, fire alerts, apply the hard stop."""
    booked = ledger_accrue_all()
    status = budget_status()
    pools_credit_note(status=status)
    alerts = budget_check(status=status)
    stopped = budget_enforce(status=status)
    return {"entries": booked, "alerts": len(alerts), "vms_stopped": stopped}


def reconcile() -> dict[str, int]:
    return pools_reconcile()

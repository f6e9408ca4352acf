"""Billing listens to fleets: every committed VM state change is accrued at once (so each ledger
period has one phase), the jobs that ended are settled (billing.faults), and at the hard stop a paid
VM that just went warm is drained."""

from __future__ import annotations

import logging
from typing import Any

from billing.alerts import budget_check
from billing.faults import ledger_faults_settle_for
from billing.hard_stop import budget_enforce, credit_used_for_pools, pools_credit_note
from billing.selectors import budget_status, pool_is_paid
from billing.services import ledger_accrue_read
from fleets.models import Pool, VMState
from fleets.services import whole_pct
from fleets.signals import vm_state_changed

log = logging.getLogger(__name__)


def on_vm_state_changed(sender: Any, vm_id: Any, pool_id: Any, old: str | None, new: str, **kwargs: Any) -> None:
    try:
        accrued = ledger_accrue_read(vm_id=vm_id)
        booked, pool = accrued.entries, accrued.pool
        ledger_faults_settle_for(entries=booked)  # a job that just ended: what its faults cost is the platform's
        if pool is None or pool.pk != pool_id:  # (the accrual read the pool with the VM, just now)
            pool = Pool.objects.filter(pk=pool_id).first()
        if pool is None or not pool_is_paid(pool):
            return
        status = budget_status()
        if pool.credit_used_pct != whole_pct(credit_used_for_pools(status)):  # else nothing to write
            pools_credit_note(status=status)
        if booked:
            budget_check(status=status)
        if new == VMState.WARM and status.exhausted:
            budget_enforce(status=status)
    except Exception:  # billing must never break the state change that triggered it; the tick retries
        log.exception("billing the state change of VM %s (%s -> %s)", vm_id, old, new)


vm_state_changed.connect(on_vm_state_changed, dispatch_uid="billing.on_vm_state_changed")

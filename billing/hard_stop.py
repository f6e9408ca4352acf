"""The hard stop: once the credit is used up, the warm VMs of paid pools are stopped. Busy ones
drain after their job: their release to WARM triggers this again through billing.receivers."""

from __future__ import annotations

import logging
from decimal import Decimal

from billing.selectors import BudgetStatus, budget_status, paid_pool_q, pool_is_paid
from core.logs import log_event
from fleets.models import Pool, VMInstance, VMState
from fleets.services import pools_credit_used_set, vm_stop

log = logging.getLogger(__name__)
HARD_STOP_PCT = Decimal(100)


def budget_enforce(*, status: BudgetStatus | None = None) -> int:
    """At the hard stop, stop the warm (idle) VMs of paid pools. Returns how many were stopped."""
    status = status or budget_status()
    if not status.exhausted:
        return 0
    stopped = 0
    for vm in VMInstance.objects.filter(state=VMState.WARM).select_related("pool"):
        if pool_is_paid(vm.pool):
            stopped += vm_stop(vm=vm, reason=status.stop_reason)
    if stopped:
        log_event(log, "budget.hard_stop", "hard stop: %d warm VM(s) of paid pools stopped (%s)", stopped,
                  status.stop_reason, level=logging.WARNING, count=stopped)
    return stopped


def credit_used_for_pools(status: BudgetStatus) -> Decimal | None:
    """What the paid pools are told of the credit: the share used, 100 at the hard stop (also when
    there is no grant), None when there is neither a grant nor a stop."""
    return HARD_STOP_PCT if status.exhausted else status.used_pct


def pools_credit_note(*, status: BudgetStatus) -> int:
    """Note the credit used on the paid pools (fleets.services.pools_credit_used_set)."""
    paid = list(Pool.objects.filter(paid_pool_q()).values_list("pk", flat=True))
    return pools_credit_used_set(used_pct=credit_used_for_pools(status), pool_ids=paid)

"""Where billing says no: the hard stop for paid pools.

submissions.dispatch asks `vm_acquire_guard` before it takes a VM for a queued submission; the
admission gate (limits.admission) asks `paid_pool_stop_reason` before it takes a new submission.
"""

from __future__ import annotations

from datetime import datetime

from billing.selectors import paid_pools_stop_reason, pool_is_paid
from fleets.models import Pool


def paid_pool_stop_reason(*, pool: Pool, now: datetime | None = None) -> str:
    """Why this pool takes no work now, the credit being used up; "" for a free pool or while credit remains."""
    if not pool_is_paid(pool):
        return ""
    return paid_pools_stop_reason(now=now)


def vm_acquire_guard(*, pool: Pool) -> str | None:
    """No VM of a paid pool is handed out (warm or new) while the credit is used up."""
    return paid_pool_stop_reason(pool=pool) or None

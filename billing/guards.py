"""Where billing says no: the hard stop for paid pools.

submissions.dispatch asks `vm_acquire_guard` before it takes a VM for a queued submission; new
submissions are refused by limits.guards (the hard stop, then the user's caps).
"""

from __future__ import annotations

from rest_framework import status

from billing.selectors import paid_pools_stop_reason, pool_is_paid
from core.exceptions import ApplicationError
from fleets.models import Pool


class PaymentRequired(ApplicationError):
    """Out of credit, or over the user's monthly spend cap: HTTP 402 with the reason."""

    status_code = status.HTTP_402_PAYMENT_REQUIRED


def vm_acquire_guard(*, pool: Pool) -> str | None:
    """No VM of a paid pool is handed out (warm or new) while the credit is used up."""
    if not pool_is_paid(pool):
        return None
    return paid_pools_stop_reason() or None


"""Where billing says no: the hard stop for paid pools.

submissions.dispatch asks `vm_acquire_guard` before it takes a VM for a queued submission; new
submissions are refused by limits.guards (the hard stop, then the user's caps).
"""

from __future__ import annotations

from rest_framework import status

from billing.selectors import fleet_is_paid, paid_fleets_stop_reason
from core.exceptions import ApplicationError
from fleets.models import Fleet


class PaymentRequired(ApplicationError):
    """Out of credit, or over the user's monthly spend cap: HTTP 402 with the reason."""

    status_code = status.HTTP_402_PAYMENT_REQUIRED


def vm_acquire_guard(*, fleet: Fleet) -> str | None:
    """No VM of a paid pool is handed out (warm or new) while the credit is used up."""
    if not fleet_is_paid(fleet):
        return None
    return paid_fleets_stop_reason() or None


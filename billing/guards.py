"""Where billing says no: the hard stop for paid pools and the per-user monthly cap.

fleets.services.vm_acquire asks `vm_acquire_guard` through settings.HIPJUDGE_VM_ACQUIRE_GUARDS (fleets
stays ignorant of billing); submissions.services.submission_create asks `submission_refusal`.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from rest_framework import status

from billing.selectors import fleet_is_paid, paid_pools_stop_reason, user_month_spend, user_monthly_cap
from config.exceptions import ApplicationError
from fleets.models import Fleet


class PaymentRequired(ApplicationError):
    """Out of credit, or over the user's spend cap: HTTP 402 with the reason."""

    status_code = status.HTTP_402_PAYMENT_REQUIRED


def vm_acquire_guard(*, fleet: Fleet) -> str | None:
    """No VM of a paid pool is handed out (warm or new) while the credit is used up."""
    if not fleet_is_paid(fleet):
        return None
    return paid_pools_stop_reason() or None


def submission_refusal(*, user: AbstractBaseUser, fleet: Fleet) -> str | None:
    """Why a new submission to `fleet` must be rejected for money reasons, or None."""
    if not fleet_is_paid(fleet):
        return None  # free pools go on whatever the budget says
    reason = paid_pools_stop_reason()
    if reason:
        return reason
    cap = user_monthly_cap(user=user)
    if cap is not None:
        spent = user_month_spend(user=user)
        if spent >= cap:
            return (f"You reached your monthly GPU spending cap of {cap:.2f} USD ({spent:.2f} USD used this "
                    "month); it resets on the 1st (UTC). Free pools still take your submissions.")
    return None

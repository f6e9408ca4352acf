"""Where limits refuse a new submission. submissions.services.submission_create asks, with the
user's row locked, so that two submissions of one user at once are judged one after the other:

1. `standing_refusal`: a suspended user (every pool), or a paid pool not open to the user: 403.
2. (the submission quotas, in submissions: 429)
3. `spend_refusal`, paid pools only: the credit is used up (402), the monthly spend cap (402), the
   daily GPU-seconds cap (429, with Retry-After until it resets).

A refusal is an ApplicationError whose extra holds {"status": "REJECTED", "limit": <which>, ...};
it is returned, not raised, and nothing of the refused submission is stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from billing.guards import PaymentRequired
from billing.selectors import paid_pools_stop_reason, pool_is_paid
from core import clock
from core.exceptions import AccessDenied, ApplicationError, QuotaExceeded
from core.units import format_duration
from fleets.models import Pool
from limits.selectors import CapUse, pools_access, submission_hold, suspended_sentence, user_caps, user_standing
from submissions.models import Status


def refusal_extra(limit: str, **fields: Any) -> dict[str, Any]:
    return {"status": Status.REJECTED.value, "limit": limit, **fields}


def standing_refusal(*, user: AbstractBaseUser, pool: Pool) -> ApplicationError | None:
    standing = user_standing(user=user)
    if standing.suspended:
        return AccessDenied(suspended_sentence(standing), refusal_extra("suspended"))
    access = pools_access(user=user, pools=[pool], standing=standing)[pool.pk]
    if not access.open:
        return AccessDenied(access.note, refusal_extra("pool_access", pool=pool.name))
    return None


def _cap_extra(limit: str, use: CapUse, need: Decimal) -> dict[str, Any]:
    return refusal_extra(limit, cap=str(use.cap), used=str(use.used), held=str(use.held), needed=str(need),
                         resets_at=use.resets_at.isoformat())


def _cap_sentence(use: CapUse, need: Decimal, pool: Pool, *, cap: str, amount: Callable[[Decimal], str],
                  period: str, resets: str) -> str:
    """Which cap, its value, what is used and held, what this submission would hold, when it resets."""
    if use.used >= (use.cap or 0):
        return f"You reached your {cap} ({amount(use.used)} used {period}). {resets}"
    held = ""
    if use.holders:
        held = (f", {amount(use.held)} held by your {use.holders} queued or running submission"
                f"{'s' if use.holders > 1 else ''}")
    return (f"This submission would pass your {cap}: {amount(use.used)} used {period}{held}, and a submission to "
            f"{pool.name!r} holds {amount(need)} until its time is booked. {resets}")


def _monthly(use: CapUse, need: Decimal, pool: Pool) -> PaymentRequired:
    message = _cap_sentence(
        use, need, pool, cap=f"monthly spending cap on paid pools of {use.cap:.2f} USD",
        amount=lambda usd: f"{usd:.2f} USD", period="this month",
        resets=f"It resets on {use.resets_at:%Y-%m-%d} at 00:00 UTC; free pools still take your submissions.")
    return PaymentRequired(message, _cap_extra("monthly_spend", use, need))


def _daily(use: CapUse, need: Decimal, pool: Pool, now: datetime) -> QuotaExceeded:
    wait = max(1, math.ceil((use.resets_at - now).total_seconds()))
    message = _cap_sentence(
        use, need, pool, cap=f"daily cap of {use.cap:.0f} GPU-seconds on paid pools",
        amount=lambda seconds: f"{seconds:.0f} s", period="today",
        resets=f"It resets at 00:00 UTC, in {format_duration(wait)}; free pools still take your submissions.")
    return QuotaExceeded(message, _cap_extra("daily_gpu_seconds", use, need), retry_after=wait)


def spend_refusal(*, user: AbstractBaseUser, pool: Pool, now: datetime | None = None) -> ApplicationError | None:
    if not pool_is_paid(pool):
        return None  # free pools go on whatever the budget and the caps say
    now = now or clock.now()
    stop = paid_pools_stop_reason(now=now)
    if stop:
        return PaymentRequired(stop, refusal_extra("credit"))
    caps = user_caps(user=user, now=now)
    need_usd, need_seconds = submission_hold(hourly_rate=pool.hourly_rate, gpu_count=pool.gpu_count)
    if caps.monthly_usd.refuses(need_usd):
        return _monthly(caps.monthly_usd, need_usd, pool)
    if caps.daily_gpu_seconds.refuses(need_seconds):
        return _daily(caps.daily_gpu_seconds, need_seconds, pool, now)
    return None

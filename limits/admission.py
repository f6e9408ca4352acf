"""The admission gate: whether a valid submission is taken, asked once per POST by
submissions.services.submission_create (the API and the problem page's form both go through it).

Before the gate, bad input is answered 400 (the request is wrong, not refused): the API's
serializer, then submission_create's checks of the source, language, mode, problem, pool, what the
pool offers (submissions.offers) and the ranked cases of a leaderboard submission. Then
`submission_refusal` locks the user's row, so that two submissions of one user at once are judged
one after the other, and asks, in this order (the first that says no answers):

1. `standing_refusal`: a suspended user (every pool), then a paid pool not open to the user: 403.
2. `quota_refusal`: submissions in 24 hours, then submissions queued or running: 429.
3. `spend_refusal`, paid pools only: billing's hard stop, the credit used up (402); the monthly
   spend cap (402); the daily GPU-seconds cap (429, with Retry-After until it resets).

A refusal is an ApplicationError (core.exceptions) whose extra holds {"status": "REJECTED",
"limit": <which>, ...}; it is returned, not raised, and nothing of the refused submission is stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from billing.guards import paid_pool_stop_reason
from billing.selectors import pool_is_paid
from core import clock
from core.exceptions import AccessDenied, ApplicationError, PaymentRequired, QuotaExceeded
from core.locks import locked
from core.prepared_query import PreparedQuery
from core.units import format_duration
from fleets.models import Pool
from limits.selectors import CapUse, pools_access, submission_hold, suspended_sentence, user_caps, user_standing
from submissions.models import Status
from submissions.selectors import user_quota


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


def quota_refusal(*, user: AbstractBaseUser, now: datetime | None = None) -> QuotaExceeded | None:
    quota = user_quota(user_id=user.pk, now=now)  # one query; the daily limit is still reported first
    if quota["daily_used"] >= quota["daily_limit"]:
        return QuotaExceeded(
            f"You reached the limit of {quota['daily_limit']} submissions in 24 hours; try again later.",
            refusal_extra("daily_submissions", cap=quota["daily_limit"]))
    if quota["concurrent_used"] >= quota["concurrent_limit"]:
        return QuotaExceeded(
            f"You already have {quota['concurrent_limit']} submission(s) queued or running; wait for one to finish "
            "or cancel it.", refusal_extra("concurrent_submissions", cap=quota["concurrent_limit"]))
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
    stop = paid_pool_stop_reason(pool=pool, now=now)
    if stop:
        return PaymentRequired(stop, refusal_extra("credit"))
    caps = user_caps(user=user, now=now)
    need_usd, need_seconds = submission_hold(hourly_rate=pool.hourly_rate, gpu_count=pool.gpu_count)
    if caps.monthly_usd.refuses(need_usd):
        return _monthly(caps.monthly_usd, need_usd, pool)
    if caps.daily_gpu_seconds.refuses(need_seconds):
        return _daily(caps.daily_gpu_seconds, need_seconds, pool, now)
    return None


# The user's row, locked (compiled once per process: it is taken at every submission).
_user_lock: PreparedQuery[Any] = PreparedQuery(
    lambda user_id: locked(get_user_model().objects.filter(pk=user_id)).values_list("pk", flat=True), user_id=int)


def submission_refusal(*, user: AbstractBaseUser, pool: Pool, now: datetime | None = None) -> ApplicationError | None:
    """Why `user` may not submit to `pool` now, or None: the gate's checks in their order (the module's
    docstring). Call it inside the transaction that stores the submission: the user's row stays
    locked until it commits, so two simultaneous requests cannot both pass a quota or a cap."""
    _user_lock.fetch(user_id=user.pk)
    return (standing_refusal(user=user, pool=pool) or quota_refusal(user=user)
            or spend_refusal(user=user, pool=pool, now=now))

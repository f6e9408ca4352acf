"""What a submission cost and what a user spent, from the billing app when it offers it.

The pages hide the cost when billing has nothing to say (no selector yet, or nothing booked), so
the web app does not depend on billing's internals: it asks billing.selectors by name.
"""

from __future__ import annotations

import importlib
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from submissions.models import Submission


def _selector(name: str) -> Any:
    try:
        module = importlib.import_module("billing.selectors")
    except ImportError:
        return None
    return getattr(module, name, None)


def submission_cost(*, submission: Submission) -> Decimal | None:
    fn = _selector("submission_cost")
    return fn(submission=submission) if fn else None


def user_spend(*, user: AbstractBaseUser) -> dict[str, Any] | None:
    """This month's spend and the user's cap (two queries), or None without billing."""
    spent_fn, cap_fn = _selector("user_month_spend"), _selector("user_monthly_cap")
    if spent_fn is None:
        return None
    spent: Decimal = spent_fn(user=user)
    cap: Decimal | None = cap_fn(user=user) if cap_fn else None
    return {"spent": spent, "cap": cap, "remaining": None if cap is None else max(cap - spent, Decimal(0)),
            "used_pct": None if not cap else min(100, float(spent / cap * 100))}

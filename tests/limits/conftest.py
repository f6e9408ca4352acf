"""Limits fixtures: billing's paid pool, grants and booked spend, plus helpers to submit and to open
a paid pool to a group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.billing.conftest import grant, make_submission, make_vm, paid_pool, spend  # noqa: F401  (fixtures)
from tests.conftest import read_source

URL = "/api/v1/submissions"


def submit(api: Any, pool: str) -> Any:
    return api.post(URL, {"problem": "vector-add", "language": "cpp", "source": read_source("cpp.cpp"),
                          "pool": pool}, format="json")


@pytest.fixture
def credit(db: Any) -> Any:
    from datetime import timedelta
    from decimal import Decimal

    from django.utils import timezone

    from billing.services import credit_grant_create

    return credit_grant_create(name="test credit", amount=Decimal(1000), starts_at=timezone.now() - timedelta(days=1))


@pytest.fixture
def open_to_group(db: Any) -> Callable[..., Any]:
    """open_to_group(pool, "gpu-users", *members): the paid pool is open to that group."""
    from django.contrib.auth.models import Group

    from limits.models import PoolGroupAccess

    def make(pool: Any, name: str, *members: Any) -> Any:
        group, _ = Group.objects.get_or_create(name=name)
        group.user_set.add(*members)
        PoolGroupAccess.objects.update_or_create(pool=pool, defaults={"group": group})
        return group

    return make


@pytest.fixture
def allowance(db: Any) -> Callable[..., Any]:
    """allowance(user, "5"): a spend allowance of the user's own (None: no cap)."""
    from decimal import Decimal

    from billing.models import UserSpendLimit

    def make(user: Any, cap: str | None) -> Any:
        return UserSpendLimit.objects.update_or_create(
            user=user, defaults={"monthly_cap": None if cap is None else Decimal(cap)})[0]

    return make

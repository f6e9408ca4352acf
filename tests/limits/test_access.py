"""Who may submit where: the free pool is open to all; a paid pool to its group, to users with a
spend allowance of their own and to superusers; no pool to a suspended user. Refusals are 403
with a sentence saying how to get access, and store nothing."""

from __future__ import annotations

from typing import Any

import pytest

from limits.models import Suspension
from submissions.models import Submission
from tests.limits.conftest import submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool", "credit")


def test_the_free_pool_is_open_to_a_new_account(owner: Any, api_as: Any) -> None:
    assert submit(api_as(owner), "local").status_code == 201


def test_a_paid_pool_refuses_a_user_outside_its_group_with_403_saying_how_to_get_access(
        owner: Any, other_user: Any, paid_pool: Any, open_to_group: Any, api_as: Any) -> None:
    open_to_group(paid_pool, "gpu-users", other_user)
    response = submit(api_as(owner), "mi300x")
    assert response.status_code == 403
    error = response.json()
    assert error["message"] == (
        "Pool 'mi300x' is a paid pool, open to members of the group 'gpu-users' and to users with a spend allowance "
        "of their own: ask the staff to add you to that group or to give you an allowance. Free pools take your "
        "submissions meanwhile.")
    assert error["extra"] == {"status": "REJECTED", "limit": "pool_access", "pool": "mi300x"}
    assert not Submission.objects.exists()
    assert submit(api_as(other_user), "mi300x").status_code == 201  # a member


def test_a_paid_pool_without_a_group_is_open_only_to_users_with_an_allowance(
        owner: Any, other_user: Any, paid_pool: Any, allowance: Any, api_as: Any) -> None:
    refused = submit(api_as(owner), "mi300x")
    assert refused.status_code == 403
    assert "open only to users with a spend allowance of their own: ask the staff to give you one" in (
        refused.json()["message"])
    allowance(owner, "5")
    assert submit(api_as(owner), "mi300x").status_code == 201


def test_an_allowance_of_zero_opens_nothing(owner: Any, paid_pool: Any, allowance: Any, api_as: Any) -> None:
    allowance(owner, "0")
    assert submit(api_as(owner), "mi300x").status_code == 403


def test_a_dstack_pool_is_paid_even_without_a_configured_rate(owner: Any, paid_pool: Any, api_as: Any) -> None:
    paid_pool.hourly_rate, paid_pool.backend = 0, "dstack"
    paid_pool.save()
    assert submit(api_as(owner), "mi300x").status_code == 403


def test_superusers_pass_like_every_permission_check(make_user: Any, paid_pool: Any, api_as: Any) -> None:
    admin = make_user("root")
    admin.is_superuser = True
    admin.save()
    assert submit(api_as(admin), "mi300x").status_code == 201


def test_a_suspended_user_can_submit_nowhere_and_is_told_why(owner: Any, staff_user: Any, paid_pool: Any,
                                                            allowance: Any, api_as: Any) -> None:
    allowance(owner, None)
    Suspension.objects.create(user=owner, reason="Burning the credit with empty jobs.", created_by=staff_user)
    for pool in ("local", "mi300x"):
        response = submit(api_as(owner), pool)
        assert response.status_code == 403, pool
        message = response.json()["message"]
        assert message.startswith("Your account is suspended since ")
        assert "(Burning the credit with empty jobs)" in message
        assert message.endswith("ask the staff to lift the suspension.")
        assert response.json()["extra"] == {"status": "REJECTED", "limit": "suspended"}
    assert not Submission.objects.exists()
    Suspension.objects.filter(user=owner).delete()
    assert submit(api_as(owner), "mi300x").status_code == 201

"""Credit, alerts and the hard stop: alert once at the crossing, paid pools stop at 100 %, free pools
go on, a new grant resumes."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

import pytest
from django.test import override_settings

from billing.alerts import budget_check, budget_enforce
from billing.models import BudgetAlert
from billing.selectors import budget_status
from fleets.models import VMState
from fleets.services import vm_acquire
from submissions.models import Status, Submission
from tests.billing.conftest import move
from tests.conftest import read_source

URL = "/api/v1/submissions"


def submit(api: Any, pool: str) -> Any:
    return api.post(URL, {"problem": "vector-add", "language": "cpp", "source": read_source("cpp.cpp"),
                          "pool": pool}, format="json")


def test_the_alert_fires_exactly_once_at_the_crossing(paid_pool: Any, grant: Any, spend: Any, staff_user: Any,
                                                      mailoutbox: Any, caplog: Any) -> None:
    staff_user.email = "ops@example.com"
    staff_user.save()
    credit = grant("100")
    spend(paid_pool, "79.99")
    assert budget_check() == []
    spend(paid_pool, "0.02")  # 80.01 %
    with caplog.at_level(logging.WARNING, logger="billing.alerts"):
        [alert] = budget_check()
    assert (alert.grant, alert.threshold, alert.used_pct) == (credit, 80, Decimal("80.01"))
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["ops@example.com"]
    assert "80.01 %" in mailoutbox[0].subject and "100 %" in mailoutbox[0].body
    assert "budget alert: 80.01 % of the GPU credit used" in caplog.text
    spend(paid_pool, "5")
    assert budget_check() == [] and budget_check() == []
    assert BudgetAlert.objects.count() == 1 and len(mailoutbox) == 1


def test_a_new_grant_has_its_own_alerts(paid_pool: Any, grant: Any, spend: Any) -> None:
    grant("100")
    spend(paid_pool, "90")
    assert [a.threshold for a in budget_check()] == [80]
    second = grant("100")  # 90 of 200: below again
    assert budget_check() == []
    spend(paid_pool, "80")  # 170 of 200 = 85 %
    assert [(a.grant, a.threshold) for a in budget_check()] == [(second, 80)]


def test_the_hard_stop_rejects_paid_submissions_with_402_and_the_free_pool_goes_on(
        problems_loaded: None, local_pool: Any, paid_pool: Any, grant: Any, spend: Any, owner: Any,
        api_as: Any) -> None:
    grant("10")
    spend(paid_pool, "10")
    response = submit(api_as(owner), "mi300x")
    assert response.status_code == 402
    error = response.json()
    assert "credit is used up" in error["message"] and "10.00 of 10.00 USD" in error["message"]
    rejected = Submission.objects.get(pk=error["extra"]["submission"])
    assert rejected.status == Status.REJECTED and rejected.status_reason == error["message"]
    assert submit(api_as(owner), "local").status_code == 201


def test_the_hard_stop_blocks_provisioning_and_a_new_grant_resumes(
        problems_loaded: None, local_pool: Any, paid_pool: Any, grant: Any, spend: Any, owner: Any,
        api_as: Any) -> None:
    grant("10")
    spend(paid_pool, "12")
    assert budget_status().exhausted
    assert vm_acquire(fleet=paid_pool, job_ref="job-1") is None
    assert vm_acquire(fleet=local_pool, job_ref="job-2") is not None  # free pools are unaffected
    grant("50")
    assert not budget_status().exhausted
    acquired = vm_acquire(fleet=paid_pool, job_ref="job-3")
    assert acquired is not None and acquired[1] is True
    assert submit(api_as(owner), "mi300x").status_code == 201


def test_warm_paid_vms_drain_at_the_hard_stop_and_free_ones_stay(
        paid_pool: Any, local_pool: Any, make_vm: Any, grant: Any, spend: Any) -> None:
    from django.utils import timezone

    paid, free = make_vm(paid_pool), make_vm(local_pool)
    for vm in (paid, free):
        move(vm, "WARM", timezone.now())
    grant("10")
    assert budget_enforce() == 0
    spend(paid_pool, "10")
    assert budget_enforce() == 1
    paid.refresh_from_db()
    free.refresh_from_db()
    assert paid.state == VMState.STOPPED and "credit is used up" in paid.state_reason
    assert free.state == VMState.WARM


def test_a_paid_vm_released_after_the_stop_drains_after_its_job(
        paid_pool: Any, make_vm: Any, grant: Any, spend: Any, django_capture_on_commit_callbacks: Any) -> None:
    from django.utils import timezone

    from fleets.services import vm_release

    vm = make_vm(paid_pool, job_ref="job-1")
    move(vm, "BUSY", timezone.now(), job_ref="job-1")
    grant("10")
    spend(paid_pool, "10")
    with django_capture_on_commit_callbacks(execute=True):
        assert vm_release(vm=vm, job_ref="job-1")
    vm.refresh_from_db()
    assert vm.state == VMState.STOPPED


def test_with_no_grant_paid_pools_are_stopped_unless_configured_otherwise(paid_pool: Any, local_pool: Any) -> None:
    assert "no active credit grant" in budget_status().stop_reason
    assert vm_acquire(fleet=paid_pool, job_ref="job-1") is None
    with override_settings(HIPJUDGE_BILLING_REQUIRE_GRANT=False):
        assert vm_acquire(fleet=paid_pool, job_ref="job-1") is not None


def test_an_expired_grant_no_longer_counts(paid_pool: Any, grant: Any) -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    grant("100", starts_at=now - timedelta(days=60), expires_at=now - timedelta(days=30))
    assert not budget_status().has_grant
    grant("25")
    assert budget_status().credit == Decimal("25")


@pytest.mark.parametrize("cap", ["5", None])
def test_the_monthly_cap_rejects_paid_submissions_of_that_user_only(
        problems_loaded: None, local_pool: Any, paid_pool: Any, grant: Any, spend: Any, owner: Any,
        other_user: Any, api_as: Any, cap: str | None) -> None:
    from billing.models import UserSpendLimit

    grant("1000")
    spend(paid_pool, "5", user=owner)
    if cap is None:
        with override_settings(HIPJUDGE_USER_MONTHLY_CAP=Decimal("5")):
            response = submit(api_as(owner), "mi300x")
    else:
        UserSpendLimit.objects.create(user=owner, monthly_cap=Decimal(cap))
        response = submit(api_as(owner), "mi300x")
    assert response.status_code == 402
    assert "monthly GPU spending cap of 5.00 USD" in response.json()["message"]
    assert submit(api_as(owner), "local").status_code == 201
    assert submit(api_as(other_user), "mi300x").status_code == 201

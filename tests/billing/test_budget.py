"""Credit, alerts and the hard stop: alert once at the crossing, paid pools stop at 100 %, free pools
go on, a new grant resumes."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from django.test import override_settings

from billing.alerts import budget_check
from billing.guards import vm_acquire_guard
from billing.hard_stop import budget_enforce
from billing.models import BudgetAlert
from billing.selectors import budget_status
from fleets.models import VMState
from submissions.dispatch import submission_dispatch_next
from submissions.models import Status, Submission
from submissions.services import submission_create
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
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["ops@example.com"]
    assert "80.01 %" in mailoutbox[0].subject
    assert "100 %" in mailoutbox[0].body
    assert "budget alert: 80.01 % of the GPU credit used" in caplog.text
    spend(paid_pool, "5")
    assert budget_check() == []
    assert budget_check() == []
    assert BudgetAlert.objects.count() == 1
    assert len(mailoutbox) == 1


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
        paid_access: None, api_as: Any) -> None:
    grant("10")
    spend(paid_pool, "10")
    response = submit(api_as(owner), "mi300x")
    assert response.status_code == 402
    error = response.json()
    assert "credit is used up" in error["message"]
    assert "10.00 of 10.00 USD" in error["message"]
    assert error["extra"] == {"status": "REJECTED", "limit": "credit"}
    assert not Submission.objects.exists()  # a refusal stores nothing
    assert submit(api_as(owner), "local").status_code == 201


def test_the_hard_stop_blocks_provisioning_and_a_new_grant_resumes(
        problems_loaded: None, local_pool: Any, paid_pool: Any, grant: Any, spend: Any, owner: Any,
        paid_access: None) -> None:
    grant("10")
    paid = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"),
                             pool_name="mi300x")
    free = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"),
                             pool_name="local")
    spend(paid_pool, "12")
    assert budget_status().exhausted
    assert submission_dispatch_next(pool=paid_pool) is None
    assert Submission.objects.get(pk=paid.pk).status == Status.IN_QUEUE  # it waits, it is not refused
    assert submission_dispatch_next(pool=local_pool) == free  # free pools are unaffected
    grant("50")
    assert not budget_status().exhausted
    assert submission_dispatch_next(pool=paid_pool) == paid
    assert Submission.objects.get(pk=paid.pk).vm_start == "COLD_START"


def test_a_new_grant_dispatches_the_queues_of_paid_pools_only(
        problems_loaded: None, local_pool: Any, paid_pool: Any, grant: Any, spend: Any, owner: Any,
        paid_access: None, queued_tasks: list, django_capture_on_commit_callbacks: Any) -> None:
    grant("10")
    for name in ("mi300x", "local"):
        submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"),
                          pool_name=name)
    spend(paid_pool, "10")
    queued_tasks.clear()
    with django_capture_on_commit_callbacks(execute=True):
        grant("50")
    assert queued_tasks == [("submissions.tasks.dispatch", str(paid_pool.pk))]


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
    assert paid.state == VMState.STOPPED
    assert "credit is used up" in paid.state_reason
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
    assert vm_acquire_guard(pool=paid_pool) == budget_status().stop_reason
    assert vm_acquire_guard(pool=local_pool) is None
    with override_settings(HIPJUDGE_BILLING_REQUIRE_GRANT=False):
        assert vm_acquire_guard(pool=paid_pool) is None


def test_an_expired_grant_no_longer_counts(paid_pool: Any, grant: Any) -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    grant("100", starts_at=now - timedelta(days=60), expires_at=now - timedelta(days=30))
    assert not budget_status().has_grant
    grant("25")
    assert budget_status().credit == Decimal("25")

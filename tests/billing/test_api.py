"""Billing API: metrics are for staff allowed to read the ledger, with money as decimal strings;
users see their own usage; a submission's cost is in its detail."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from billing.services import ledger_accrue
from tests.billing.conftest import move

METRICS = "/api/v1/metrics"
USAGE = "/api/v1/usage"


@pytest.mark.django_db
def test_metrics_refuse_anonymous_callers(api_as: Any) -> None:
    assert api_as(None).get(METRICS).status_code in (401, 403)


def test_metrics_refuse_a_normal_user(owner: Any, api_as: Any) -> None:
    response = api_as(owner).get(METRICS)
    assert response.status_code == 403
    assert set(response.json()) == {"message", "extra"}


def test_metrics_refuse_staff_who_may_not_read_the_ledger(staff_user: Any, api_as: Any) -> None:
    response = api_as(staff_user).get(METRICS)
    assert response.status_code == 403
    assert "billing.view_ledgerentry" in response.json()["message"]


def test_metrics_give_staff_the_figures_with_money_as_decimal_strings(
        staff_user: Any, api_as: Any, paid_pool: Any, make_vm: Any, make_submission: Any, owner: Any,
        grant: Any, spend: Any) -> None:
    now = timezone.now()
    grant("100")
    sub = make_submission(owner, paid_pool, vm_start="COLD_START", queued_at=now - timedelta(seconds=30),
                          dispatched_at=now - timedelta(seconds=20))
    make_submission(owner, paid_pool, vm_start="WARM_REUSE", queued_at=now - timedelta(seconds=10),
                    dispatched_at=now)
    vm = make_vm(paid_pool, at=now - timedelta(hours=2), job_ref=str(sub.pk))
    move(vm, "BUSY", now - timedelta(hours=2) + timedelta(seconds=90), job_ref=str(sub.pk))
    move(vm, "WARM", now - timedelta(hours=1))
    ledger_accrue(vm_id=vm.pk, now=now)
    spend(paid_pool, "10")
    staff_user.user_permissions.add(Permission.objects.get(codename="view_ledgerentry"))
    data = api_as(staff_user).get(METRICS).json()
    expected = {"total_cost_usd", "remaining_credits_usd", "credits_used_pct", "tasks_completed", "cold_starts",
                "warm_reuses", "active_vms", "idle_cost_usd", "avg_queue_wait_s", "avg_cold_start_s",
                "burn_rate_usd_per_day", "projected_exhaustion_date"}
    assert expected <= set(data)
    total = Decimal(data["total_cost_usd"])
    assert isinstance(data["total_cost_usd"], str)
    assert total == Decimal("10") + Decimal("3.98")  # 2 h × 1.99
    assert Decimal(data["remaining_credits_usd"]) == Decimal(100) - total
    assert data["credits_used_pct"] == "13.98"
    assert Decimal(data["idle_cost_usd"]) == Decimal("1.990000")
    assert (data["tasks_completed"], data["cold_starts"], data["warm_reuses"], data["active_vms"]) == (2, 1, 1, 1)
    assert data["avg_queue_wait_s"] == pytest.approx(10.0)
    assert data["avg_cold_start_s"] == pytest.approx(90.0)
    assert Decimal(data["burn_rate_usd_per_day"]) > 0
    assert data["projected_exhaustion_date"]


def test_a_user_sees_their_own_usage_and_no_one_elses(owner: Any, other_user: Any, api_as: Any, paid_pool: Any,
                                                      spend: Any) -> None:
    spend(paid_pool, "1.25", user=owner)
    spend(paid_pool, "7", user=other_user)
    data = api_as(owner).get(USAGE).json()
    assert data["spent_usd"] == "1.250000"
    assert data["monthly_cap_usd"] == "20.000000"  # the default cap
    assert data["by_pool"] == [{"pool": "mi300x", "cost_usd": "1.250000", "busy_seconds": "0.000"}]
    assert data["daily_limit"] == 100
    assert data["concurrent_limit"] == 2
    assert api_as(None).get(USAGE).status_code in (401, 403)


def test_a_submission_shows_what_its_vm_time_cost(owner: Any, other_user: Any, api_as: Any, paid_pool: Any,
                                                  make_vm: Any, make_submission: Any, client: Any) -> None:
    start = timezone.now() - timedelta(hours=1)
    sub = make_submission(owner, paid_pool)
    vm = make_vm(paid_pool, at=start, job_ref=str(sub.pk))
    move(vm, "BUSY", start, job_ref=str(sub.pk))
    move(vm, "WARM", start + timedelta(minutes=30))
    data = api_as(owner).get(f"/api/v1/submissions/{sub.pk}").json()
    assert data["cost_usd"] == "0.995000"
    assert api_as(other_user).get(f"/api/v1/submissions/{sub.pk}").status_code == 404
    client.force_login(owner)
    page = client.get(f"/submissions/{sub.pk}/")
    assert page.status_code == 200
    assert 'data-testid="cost">$0.9950<' in page.content.decode()


def test_a_submissions_cost_is_what_its_owners_caps_count_cold_start_and_idle_included(
        owner: Any, api_as: Any, paid_pool: Any, make_vm: Any, make_submission: Any, client: Any) -> None:
    start = timezone.now() - timedelta(hours=1)
    sub = make_submission(owner, paid_pool)
    vm = make_vm(paid_pool, at=start, job_ref=str(sub.pk))  # a cold start for this submission: 2 minutes
    ledger_accrue(vm_id=vm.pk, now=start)  # the provisioning VM is seen reserved for the job
    move(vm, "BUSY", start + timedelta(minutes=2), job_ref=str(sub.pk))  # 30 minutes busy
    move(vm, "WARM", start + timedelta(minutes=32))
    move(vm, "STOPPED", start + timedelta(minutes=42))  # 10 minutes idle after it
    data = api_as(owner).get(f"/api/v1/submissions/{sub.pk}").json()
    assert data["cost_parts"] == {"provisioning": "0.066333", "busy": "0.995000", "idle": "0.331667"}
    assert data["cost_usd"] == "1.393000"
    assert api_as(owner).get("/api/v1/me").json()["limits"]["monthly_spend_usd"]["used"] == "1.393000"
    listed = api_as(owner).get("/api/v1/submissions").json()["results"]
    assert [s["cost_usd"] for s in listed] == ["1.393000"]
    client.force_login(owner)
    page = client.get(f"/submissions/{sub.pk}/").content.decode()
    assert 'data-testid="cost">$1.39<' in page
    assert "(cold start $0.0663 · busy $0.9950 · idle after $0.3317)" in page

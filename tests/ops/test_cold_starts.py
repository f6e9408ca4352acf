"""Cold starts and warm reuses have one definition (submissions.vm_starts): the staff dashboard, the
staff metrics API and Prometheus count the same for the same rows."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from fleets.models import VMInstance, VMState
from fleets.services import pool_ensure
from submissions.models import Problem, Status, Submission, VMStartKind
from tests.ops.test_metrics import scrape

DASHBOARD = "/admin/billing/ledgerentry/dashboard/"
COLD, WARM = VMStartKind.COLD_START, VMStartKind.WARM_REUSE


@pytest.fixture
def starts(owner: Any, local_pool: Any, problems_loaded: None) -> None:
    """Pool local: one cold start, two warm reuses, one re-queued submission and a VM started ahead of
    demand (no one's cold start). Pool other: two cold starts (one three days ago), one warm reuse."""
    other, _ = pool_ensure(name="other", backend="local", device="host", max_vms=2, idle_timeout_s=600)
    version = Problem.objects.get(slug="vector-add").current_version
    now = timezone.now()

    def submission(pool: Any, vm_start: str, days_ago: int = 0) -> None:
        dispatched = now - timedelta(days=days_ago) if vm_start else None
        Submission.objects.create(user=owner, problem=version.problem, problem_version=version, pool=pool,
                                  language="cpp", source="int main(){}", vm_start=vm_start,
                                  status=Status.ACCEPTED if vm_start else Status.IN_QUEUE, queued_at=now,
                                  dispatched_at=dispatched)

    for pool, vm_start, days_ago in [(local_pool, COLD, 0), (local_pool, WARM, 0), (local_pool, WARM, 1),
                                     (local_pool, "", 0), (other, COLD, 0), (other, COLD, 3), (other, WARM, 0)]:
        submission(pool, vm_start, days_ago)
    VMInstance.objects.create(pool=local_pool, state=VMState.WARM, jobs_started=1)  # started ahead of demand


@pytest.mark.usefixtures("starts")
def test_prometheus_counts_each_pools_starts_by_how_its_submissions_got_their_vm() -> None:
    series = scrape()
    assert series[("hipjudge_vm_cold_starts_total", (("pool", "local"),))] == 1
    assert series[("hipjudge_vm_warm_reuses_total", (("pool", "local"),))] == 2
    assert series[("hipjudge_vm_cold_starts_total", (("pool", "other"),))] == 2
    assert series[("hipjudge_vm_warm_reuses_total", (("pool", "other"),))] == 1


@pytest.mark.usefixtures("starts")
def test_the_dashboard_the_metrics_api_and_prometheus_count_the_same(admin_client: Any) -> None:
    series = scrape()
    prometheus = (sum(v for (name, _), v in series.items() if name == "hipjudge_vm_cold_starts_total"),
                  sum(v for (name, _), v in series.items() if name == "hipjudge_vm_warm_reuses_total"))
    data = admin_client.get(DASHBOARD).context["data"]
    dashboard = (data["metrics"]["cold_starts"], data["metrics"]["warm_reuses"])
    chart = (sum(data["charts"]["starts"]["cold"]), sum(data["charts"]["starts"]["warm"]))  # all within 30 days
    api = admin_client.get("/api/v1/metrics").json()
    assert prometheus == (3, 3)
    assert dashboard == prometheus
    assert chart == prometheus
    assert (api["cold_starts"], api["warm_reuses"]) == prometheus

"""/metrics: Prometheus text computed from the database, never public."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from billing.models import BudgetAlert, CreditGrant, LedgerEntry, Phase
from core.counters import DSTACK_CALL_ERRORS, counter_add, counter_values
from core.heartbeat import heartbeat_beat
from fleets.models import VMInstance, VMState
from submissions.models import Problem, Status, Submission, VMStartKind
from tests.conftest import read_source

pytestmark = pytest.mark.django_db


def scrape(**extra: Any) -> dict[tuple[str, tuple], float]:
    response = Client().get("/metrics", **{"REMOTE_ADDR": "127.0.0.1", **extra})
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.content.decode()) for sample in family.samples}


@pytest.mark.parametrize(("address", "header", "allowed"), [
    ("127.0.0.1", "", True),
    ("::1", "", True),
    ("203.0.113.9", "", False),
    ("203.0.113.9", "Bearer s3cret-metrics-token", True),
    ("203.0.113.9", "Bearer wrong", False),
    ("203.0.113.9", "Token s3cret-metrics-token", False),
])
def test_metrics_are_for_allowed_addresses_or_the_bearer_token(settings: Any, address: str, header: str,
                                                               allowed: bool) -> None:
    settings.HIPJUDGE_METRICS_TOKEN = "s3cret-metrics-token"
    response = Client().get("/metrics", REMOTE_ADDR=address, HTTP_AUTHORIZATION=header, HTTP_HOST="10.0.0.5")
    assert response.status_code == (200 if allowed else 403)


def test_an_openmetrics_scraper_gets_openmetrics() -> None:
    accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
    response = Client().get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_ACCEPT=accept)
    assert response["Content-Type"].startswith("application/openmetrics-text")
    assert response.content.endswith(b"# EOF\n")


def test_without_a_token_only_the_allow_list_counts(settings: Any) -> None:
    import ipaddress

    settings.HIPJUDGE_METRICS_ALLOW = [ipaddress.ip_network("10.0.0.0/8")]
    assert Client().get("/metrics", REMOTE_ADDR="10.2.3.4").status_code == 200
    assert Client().get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403
    assert Client().get("/metrics", REMOTE_ADDR="10.2.3.4", HTTP_AUTHORIZATION="Bearer ").status_code == 200


@pytest.mark.usefixtures("problems_loaded")
def test_the_series_count_what_the_database_holds(owner: Any, local_pool: Any) -> None:
    now = timezone.now()
    version = Problem.objects.get(slug="vector-add").current_version
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.BUSY, job_ref="x", jobs_started=3)
    VMInstance.objects.create(pool=local_pool, state=VMState.STOPPED, jobs_started=1)

    def submission(status: str, wait_s: float | None = None, job_s: float | None = None, start: str = "") -> None:
        Submission.objects.create(
            user=owner, problem=version.problem, problem_version=version, pool=local_pool, language="cpp",
            source=read_source("cpp.cpp"), status=status, queued_at=now, vm_start=start,
            dispatched_at=now + timedelta(seconds=wait_s) if wait_s is not None else None,
            started_at=now + timedelta(seconds=10) if job_s is not None else None,
            finished_at=now + timedelta(seconds=10 + job_s) if job_s is not None else None)

    submission(Status.IN_QUEUE)
    submission(Status.IN_QUEUE)
    submission(Status.CHECKING, wait_s=0.3, start=VMStartKind.WARM_REUSE)
    submission(Status.ACCEPTED, wait_s=4, job_s=1.5, start=VMStartKind.WARM_REUSE)
    submission(Status.WRONG_ANSWER, wait_s=40, job_s=100, start=VMStartKind.COLD_START)
    grant = CreditGrant.objects.create(name="g", amount=Decimal("100"), starts_at=now - timedelta(days=1))
    LedgerEntry.objects.create(vm=vm, pool=local_pool, phase=Phase.BUSY, period_start=now, period_end=now,
                               seconds=Decimal(1), rate_per_hour=Decimal(1), amount=Decimal("12.345678"))
    BudgetAlert.objects.create(grant=grant, threshold=80, fired_at=now, used_pct=Decimal(81), spent=Decimal(1),
                               credit=Decimal(1))
    counter_add(name=DSTACK_CALL_ERRORS, label="DstackUnreachableError")
    counter_add(name=DSTACK_CALL_ERRORS, label="DstackUnreachableError")
    heartbeat_beat(name="host:1", now=timezone.now() - timedelta(seconds=100))

    s = scrape()
    pool = ("pool", "local")
    assert s[("hipjudge_queue_depth", (pool,))] == 2
    assert s[("hipjudge_submissions_running", (pool, ("status", "CHECKING")))] == 1
    assert s[("hipjudge_verdicts_total", (pool, ("status", "ACCEPTED")))] == 1
    assert s[("hipjudge_verdicts_total", (pool, ("status", "WRONG_ANSWER")))] == 1
    assert s[("hipjudge_vms", (pool, ("state", "BUSY")))] == 1
    assert s[("hipjudge_vms", (pool, ("state", "WARM")))] == 0
    assert s[("hipjudge_vm_cold_starts_total", (pool,))] == 1  # submissions by how they got their VM
    assert s[("hipjudge_vm_warm_reuses_total", (pool,))] == 2
    assert s[("hipjudge_queue_wait_seconds_count", (pool,))] == 3
    assert s[("hipjudge_queue_wait_seconds_bucket", (("le", "0.5"), pool))] == 1
    assert s[("hipjudge_queue_wait_seconds_bucket", (("le", "5.0"), pool))] == 2
    assert s[("hipjudge_queue_wait_seconds_bucket", (("le", "+Inf"), pool))] == 3
    assert s[("hipjudge_queue_wait_seconds_sum", (pool,))] == pytest.approx(44.3)
    assert s[("hipjudge_agent_job_seconds_bucket", (("le", "2.0"), pool))] == 1
    assert s[("hipjudge_agent_job_seconds_count", (pool,))] == 2
    assert s[("hipjudge_agent_job_seconds_sum", (pool,))] == pytest.approx(101.5)
    assert s[("hipjudge_spend_usd", (pool,))] == pytest.approx(12.345678)
    assert s[("hipjudge_credit_usd", ())] == 100
    assert s[("hipjudge_credit_remaining_usd", ())] == pytest.approx(100 - 12.345678)
    assert s[("hipjudge_paid_pools_stopped", ())] == 0
    assert s[("hipjudge_budget_alerts_total", (("threshold", "80"),))] == 1
    assert s[("hipjudge_dstack_call_errors_total", (("error", "DstackUnreachableError"),))] == 2
    assert s[("hipjudge_worker_heartbeat_age_seconds", ())] >= 100  # the beat was 100 s ago


def test_failed_dstack_calls_are_counted_by_error_class(settings: Any) -> None:
    from fleets.dstack import DstackUnreachableError
    from fleets.dstack_pools.config import dstack_client

    settings.DSTACK_SERVER_URL, settings.DSTACK_TOKEN = "http://127.0.0.1:9", "token"
    client = dstack_client(timeout_s=1, connect_retries=0, retry_budget_s=1)
    with pytest.raises(DstackUnreachableError):
        client.server_version()
    assert counter_values(name=DSTACK_CALL_ERRORS) == {"DstackUnreachableError": 1}

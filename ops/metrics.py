"""Prometheus metrics (/metrics), computed from the database at scrape time.

Several web and worker processes on several hosts share one database, and every series here is a
fact about rows in it: queue depth, VMs by state, cold starts and warm reuses (submissions.vm_starts,
the dashboard's definition), verdicts, the wait and job-duration histograms (timestamps of
submissions), spend and credit (the ledger and grants), budget alerts, and dstack call errors
(core.models.EventCounter, written by whichever process saw the error). So any web process answers a
scrape with the whole platform's numbers, Prometheus scrapes one target (the load balancer) instead
of every process, and no multi-process bookkeeping can drift or be lost when a process dies. A
counter can only go down when rows are deleted (a user removed), or, for cold starts and warm
reuses, when a submission dispatched again (re-queued or rejudged) gets its new VM the other way;
Prometheus reads that as a counter reset.

One scrape costs about ten aggregate queries; the two histograms scan the dispatched submissions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, QuerySet, Sum
from django.utils import timezone
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import choose_encoder

from billing.models import BudgetAlert, LedgerEntry
from billing.selectors import budget_status
from core.counters import DSTACK_CALL_ERRORS, counter_values
from core.heartbeat import heartbeat_latest
from fleets.models import Pool, VMInstance, VMState
from submissions.models import RUNNING_STATUSES, TERMINAL_STATUSES, Status, Submission
from submissions.vm_starts import vm_starts_by_pool

# Seconds; a wait covers a cold start (minutes on dstack), a job a compile plus a benchmark.
WAIT_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
JOB_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800)


def _histogram(qs: QuerySet[Submission], start: str, end: str, buckets: Iterable[float],
               pools: dict[Any, str]) -> dict[str, tuple[list[tuple[str, int]], float]]:
    """Per pool name: cumulative bucket counts (with +Inf) and the sum of seconds, in one query."""
    buckets = tuple(buckets)
    span = ExpressionWrapper(F(end) - F(start), output_field=DurationField())
    counts = {f"le{i}": Count("pk", filter=Q(span__lte=timedelta(seconds=b))) for i, b in enumerate(buckets)}
    rows = (qs.filter(**{f"{start}__isnull": False, f"{end}__isnull": False}).alias(span=span)
            .values("pool_id").annotate(n=Count("pk"), total=Sum("span"), **counts).order_by())
    result = {}
    for row in rows:
        series = [(_bound(b), row[f"le{i}"]) for i, b in enumerate(buckets)] + [("+Inf", row["n"])]
        total = row["total"]
        seconds = total.total_seconds() if isinstance(total, timedelta) else float(total or 0) / 1e6
        result[pools.get(row["pool_id"], str(row["pool_id"]))] = (series, seconds)
    return result


def _bound(value: float) -> str:
    return str(float(value))


class PlatformCollector:
    """Every series, read from the database when Prometheus asks."""

    def collect(self) -> Iterator[Metric]:
        pools = dict(Pool.objects.values_list("pk", "name"))
        yield from self._queue(pools)
        yield from self._vms(pools)
        yield from self._histograms(pools)
        yield from self._money(pools)
        yield from self._events()

    def _queue(self, pools: dict[Any, str]) -> Iterator[Metric]:
        depth = GaugeMetricFamily("hipjudge_queue_depth", "Submissions waiting for a VM.", labels=["pool"])
        running = GaugeMetricFamily("hipjudge_submissions_running", "Submissions dispatched to a VM, by status.",
                                    labels=["pool", "status"])
        verdicts = CounterMetricFamily("hipjudge_verdicts", "Submissions ended, by final status.",
                                       labels=["pool", "status"])
        queued = {name: 0 for name in pools.values()}
        rows = (Submission.objects.filter(status__in=(Status.IN_QUEUE, *RUNNING_STATUSES, *TERMINAL_STATUSES))
                .values_list("pool_id", "status").annotate(n=Count("pk")).order_by())
        for pool_id, status, n in rows:
            pool = pools.get(pool_id, str(pool_id))
            if status == Status.IN_QUEUE:
                queued[pool] = n
            elif status in RUNNING_STATUSES:
                running.add_metric([pool, status], n)
            else:
                verdicts.add_metric([pool, status], n)
        for pool, n in queued.items():
            depth.add_metric([pool], n)
        yield from (depth, running, verdicts)

    def _vms(self, pools: dict[Any, str]) -> Iterator[Metric]:
        states = GaugeMetricFamily("hipjudge_vms", "VMs by state.", labels=["pool", "state"])
        cold = CounterMetricFamily("hipjudge_vm_cold_starts", "Submissions handed to a VM started for them.",
                                   labels=["pool"])
        warm = CounterMetricFamily("hipjudge_vm_warm_reuses", "Submissions handed to a VM that was already up.",
                                   labels=["pool"])
        by_state = {(pool_id, state): n for pool_id, state, n in VMInstance.objects.values_list(
            "pool_id", "state").annotate(n=Count("pk")).order_by()}
        for pool_id, pool in pools.items():
            for state in VMState.values:
                states.add_metric([pool, state], by_state.get((pool_id, state), 0))
        for pool_id, starts in vm_starts_by_pool().items():
            pool = pools.get(pool_id, str(pool_id))
            cold.add_metric([pool], starts.cold)
            warm.add_metric([pool], starts.warm)
        yield from (states, cold, warm)

    def _histograms(self, pools: dict[Any, str]) -> Iterator[Metric]:
        wait = HistogramMetricFamily("hipjudge_queue_wait_seconds", "From queued to handed to a VM.",
                                     labels=["pool"])
        for pool, (series, total) in _histogram(Submission.objects.all(), "queued_at", "dispatched_at",
                                                WAIT_BUCKETS, pools).items():
            wait.add_metric([pool], series, total)
        job = HistogramMetricFamily("hipjudge_agent_job_seconds",
                                    "From the job handed to the agent to its result (finished submissions).",
                                    labels=["pool"])
        finished = Submission.objects.filter(status__in=TERMINAL_STATUSES)
        for pool, (series, total) in _histogram(finished, "started_at", "finished_at", JOB_BUCKETS, pools).items():
            job.add_metric([pool], series, total)
        yield from (wait, job)

    def _money(self, pools: dict[Any, str]) -> Iterator[Metric]:
        spend = GaugeMetricFamily("hipjudge_spend_usd", "Booked in the ledger (corrections included), USD.",
                                  labels=["pool"])
        for pool_id, total in LedgerEntry.objects.values_list("pool_id").annotate(t=Sum("amount")).order_by():
            spend.add_metric([pools.get(pool_id, str(pool_id))], float(total or 0))
        status = budget_status()
        credit = GaugeMetricFamily("hipjudge_credit_usd", "Active credit grants together, USD.", value=float(
            status.credit))
        remaining = GaugeMetricFamily("hipjudge_credit_remaining_usd", "Credit left, USD (negative: overspent).",
                                      value=float(status.remaining))
        stopped = GaugeMetricFamily("hipjudge_paid_pools_stopped", "1 while paid pools take no work (hard stop).",
                                    value=1 if status.exhausted else 0)
        yield from (spend, credit, remaining, stopped)

    def _events(self) -> Iterator[Metric]:
        alerts = CounterMetricFamily("hipjudge_budget_alerts", "Budget alerts fired, by threshold percent.",
                                     labels=["threshold"])
        for threshold, n in BudgetAlert.objects.values_list("threshold").annotate(n=Count("pk")).order_by():
            alerts.add_metric([str(threshold)], n)
        errors = CounterMetricFamily("hipjudge_dstack_call_errors", "Failed dstack API calls, by error class.",
                                     labels=["error"])
        for error, n in sorted(counter_values(name=DSTACK_CALL_ERRORS).items()):
            errors.add_metric([error], n)
        latest = heartbeat_latest()
        beat = GaugeMetricFamily("hipjudge_worker_heartbeat_age_seconds",
                                 "Seconds since a worker cluster last reported (-1: never).",
                                 value=(timezone.now() - latest).total_seconds() if latest else -1)
        yield from (alerts, errors, beat)


def metrics_exposition(*, accept: str) -> tuple[bytes, str]:
    """Every series in the format the scraper asks for (Accept: Prometheus text or OpenMetrics),
    and its content type."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(PlatformCollector())  # type: ignore[arg-type]
    encode, content_type = choose_encoder(accept)
    return encode(registry), content_type

"""Cold starts and warm reuses: the one definition that the staff dashboard and API (billing.metrics,
billing.dashboard) and Prometheus (ops.metrics) all read, so that they cannot disagree.

A cold start is a submission handed to a VM started for it, a warm reuse one handed to a VM that was
already up (dispatch sets `Submission.vm_start`). A VM started ahead of demand is no one's cold start:
the job it gets waits for no start. A submission counts once, by its latest dispatch: a re-queue (its
VM lost) or a rejudge clears it until it is dispatched again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from django.db.models import Count, Q
from django.db.models.functions import TruncDate

from submissions.models import Submission, VMStartKind

# Aggregates over submissions, for a reader that folds them into a query of its own (VMStarts.of reads them).
VM_START_COUNTS = {"cold": Count("pk", filter=Q(vm_start=VMStartKind.COLD_START)),
                   "warm": Count("pk", filter=Q(vm_start=VMStartKind.WARM_REUSE))}


@dataclass(frozen=True)
class VMStarts:
    cold: int = 0
    warm: int = 0

    @classmethod
    def of(cls, row: dict[str, Any]) -> VMStarts:
        return cls(cold=row["cold"], warm=row["warm"])


def vm_starts_by_pool() -> dict[Any, VMStarts]:
    """Per pool id (only pools with a dispatched submission)."""
    rows = Submission.objects.exclude(vm_start="").values("pool_id").annotate(**VM_START_COUNTS).order_by()
    return {row["pool_id"]: VMStarts.of(row) for row in rows}


def vm_starts_by_day(*, since: datetime) -> dict[date, VMStarts]:
    """Per UTC day of the dispatch, for submissions dispatched since `since`."""
    rows = (Submission.objects.filter(dispatched_at__gte=since).exclude(vm_start="")
            .annotate(day=TruncDate("dispatched_at", tzinfo=UTC)).values("day").annotate(**VM_START_COUNTS).order_by())
    return {row["day"]: VMStarts.of(row) for row in rows}

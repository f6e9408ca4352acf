"""Reads for the admin cost dashboard: one call, a fixed number of queries whatever the data size.

Everything is grouped in the database (by day, phase, user, pool, VM); the page turns the result
into Chart.js datasets (static/billing/dashboard.js) and a per-VM table.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Max, Min, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from billing.alerts import NOBODY_TOLD, alert_recipients
from billing.amounts import ZERO, quantize_usd
from billing.metrics import PLATFORM_FAULT_Q, metrics_get
from billing.models import LedgerEntry, Phase, ReconciliationReport
from billing.selectors import budget_status
from core.units import format_duration
from fleets.models import Backend
from fleets.selectors import prewarm_overview
from submissions.vm_starts import VMStarts, vm_starts_by_day

DAYS = 30
TOP = 10
VM_ROWS = 50
STACKS = [Phase.PROVISIONING, Phase.BUSY, Phase.IDLE, Phase.DRAINING, "correction"]


def _days(start: date, count: int) -> list[date]:
    return [start + timedelta(days=i) for i in range(count)]


def _f(value: Decimal | None) -> float:
    """Chart values: floats are fine for drawing (the tables and the API keep Decimals)."""
    return round(float(value or 0), 6)


def dashboard_data(*, now: datetime | None = None) -> dict[str, Any]:
    now = now or timezone.now()
    today = now.astimezone(UTC).date()
    first_day = today - timedelta(days=DAYS - 1)
    window_start = datetime.combine(first_day, datetime.min.time(), tzinfo=UTC)
    days = _days(first_day, DAYS)
    recent = LedgerEntry.objects.filter(period_start__gte=window_start)

    # Daily spend stacked by phase (corrections as their own stack), and what the platform's own faults
    # cost it (billing.faults: already inside the phases, as time of that phase booked to nobody).
    daily = {phase: [0.0] * DAYS for phase in STACKS}
    faults = [0.0] * DAYS
    for row in recent.annotate(day=TruncDate("period_start", tzinfo=UTC)).values("day", "phase").annotate(
            cost=Sum("amount"), fault=Sum("amount", filter=PLATFORM_FAULT_Q)):
        stack = row["phase"] or "correction"
        daily[stack][(row["day"] - first_day).days] = _f(row["cost"])
        faults[(row["day"] - first_day).days] = round(faults[(row["day"] - first_day).days] + _f(row["fault"]), 6)

    status = budget_status(now=now)
    metrics = metrics_get(now=now, status=status)

    # Cumulative spend against the credit: what was spent before the window, then day by day.
    spent_before = ZERO
    if status.since is not None and status.since < window_start:
        spent_before = LedgerEntry.objects.filter(period_start__gte=status.since,
                                                  period_start__lt=window_start).aggregate(
            total=Sum("amount"))["total"] or ZERO
    cumulative, running = [], float(spent_before)
    for i in range(DAYS):
        running += sum(daily[stack][i] for stack in STACKS)
        cumulative.append(round(running, 6))

    users = list(recent.filter(user__isnull=False).values("user__username").annotate(
        cost=Sum("amount"), secs=Sum("seconds")).order_by("-cost")[:TOP])
    pools = list(recent.values("pool__name", "pool__backend").annotate(
        cost=Sum("amount"), secs=Sum("seconds"),
        idle=Sum("amount", filter=Q(phase=Phase.IDLE))).order_by("-cost"))
    for totals in [*users, *pools]:  # SQLite sums decimals with extra digits
        totals["cost"] = quantize_usd(totals["cost"] or ZERO)
    for totals in pools:
        totals["idle"] = quantize_usd(totals["idle"] or ZERO)
        totals["label"] = pool_label(totals["pool__name"], totals["pool__backend"])
    vms = _vm_rows(recent)
    starts = vm_starts_by_day(since=window_start)

    y_max = budget_axis_top(credit=_f(status.credit), cumulative=cumulative)
    thresholds = settings.HIPJUDGE_BUDGET_ALERT_THRESHOLDS
    alert_pct = min((t for t in thresholds if t < 100), default=80)
    return {
        "status": status,
        "metrics": metrics,
        "alert_pct": alert_pct,
        "alert_line_usd": quantize_usd(status.credit * alert_pct / 100),
        "spent_30d": quantize_usd(sum((Decimal(str(v)) for stack in STACKS for v in daily[stack]), ZERO)),
        "faults_30d": quantize_usd(sum((Decimal(str(v)) for v in faults), ZERO)),
        "users": users,
        "pools": pools,
        "simulated_pools": sorted(f["pool__name"] for f in pools if f["pool__backend"] == Backend.SIM),
        "vms": vms,
        "prewarm": prewarm_overview(now=now),  # the forecast pools: what they expect, spend and start
        "reconciliations": list(ReconciliationReport.objects.select_related("pool").order_by("-created_at")[:8]),
        "gap_pct_limit": settings.HIPJUDGE_RECONCILE_GAP_PCT,
        "nobody_told": "" if alert_recipients() else NOBODY_TOLD,
        "charts": {
            "days": [d.isoformat() for d in days],
            "daily": {str(k): v for k, v in daily.items()},
            "faults": faults,
            "cumulative": cumulative,
            "credit": _f(status.credit),
            "alert_line": _f(status.credit * alert_pct / 100),
            "alert_pct": alert_pct,
            "projection": _clipped(_projection(metrics, cumulative, days, today), y_max),
            "y_max": y_max,
            "users": {"labels": [u["user__username"] for u in users], "cost": [_f(u["cost"]) for u in users]},
            "pools": {"labels": [f["label"] for f in pools], "cost": [_f(f["cost"]) for f in pools],
                       "idle": [_f(f["idle"]) for f in pools]},
            "starts": {"cold": [starts.get(day, VMStarts()).cold for day in days],
                       "warm": [starts.get(day, VMStarts()).warm for day in days]},
        },
    }


def budget_axis_top(*, credit: float, cumulative: list[float]) -> float | None:
    """The top of the budget chart's y-axis: the credit or the spend, whichever is higher, with a
    tenth of headroom. Never the projection's: scaled by where the burn rate would lead in 60 days,
    a $3 credit and its spend drew as a flat line at the foot of an $80 axis."""
    top = max([credit, *cumulative], default=0.0)
    return round(top * 1.1, 2) if top > 0 else None


def _clipped(projection: dict[str, Any], top: float | None) -> dict[str, Any]:
    """The projection up to the first day it reaches the axis' top (that day drawn at the top)."""
    if top is None:
        return projection
    days, values = [], []
    for day, value in zip(projection["days"], projection["values"], strict=True):
        days.append(day)
        values.append(min(value, top))
        if value >= top:
            break
    return {"days": days, "values": values}


def pool_label(name: str, backend: str) -> str:
    return f"{name} (simulated)" if backend == Backend.SIM else name


def _projection(metrics: dict[str, Any], cumulative: list[float], days: list[date], today: date) -> dict[str, Any]:
    """The spend line extended at the current burn rate up to the exhaustion date (if within 60 days)."""
    burn = float(metrics["burn_rate_usd_per_day"])
    exhaustion = metrics["projected_exhaustion_date"]
    if burn <= 0 or exhaustion is None or not cumulative:
        return {"days": [], "values": []}
    horizon = min((exhaustion - today).days + 1, 60)
    future = _days(today, max(horizon, 1) + 1)
    return {"days": [d.isoformat() for d in future],
            "values": [round(cumulative[-1] + burn * i, 6) for i in range(len(future))]}


def _vm_rows(recent: Any) -> list[dict[str, Any]]:
    rows = (recent.exclude(vm=None)
            .values("vm_id", "vm__state", "vm__created_at", "vm__stopped_at", "pool__name", "pool__backend")
            .annotate(cost=Sum("amount"), secs=Sum("seconds"),
                      busy=Sum("seconds", filter=Q(phase=Phase.BUSY)),
                      idle_cost=Sum("amount", filter=Q(phase=Phase.IDLE)),
                      first=Min("period_start"), last=Max("period_end"))
            .order_by("-last")[:VM_ROWS])
    result = []
    for row in rows:
        seconds = row["secs"] or Decimal(0)
        busy = row["busy"] or Decimal(0)
        result.append({
            "id": row["vm_id"], "short_id": str(row["vm_id"])[:8],
            "pool": pool_label(row["pool__name"], row["pool__backend"]),
            "state": row["vm__state"], "created_at": row["vm__created_at"], "stopped_at": row["vm__stopped_at"],
            "uptime_s": seconds, "uptime": format_duration(float(seconds)),
            "busy_pct": (busy * 100 / seconds).quantize(Decimal("0.1")) if seconds else Decimal("0.0"),
            "cost": quantize_usd(row["cost"] or ZERO), "idle_cost": quantize_usd(row["idle_cost"] or ZERO),
        })
    return result

"""Pool policies: when a pool starts a VM, keeps a warm one, and stops it. The dispatcher asks
`scale_decision` when a job finds no warm VM (fleets.services.vm_acquire); the reaper asks
`reap_plan` every minute (fleets.services.vm_reap_idle). Both only read: services make the changes.

- fixed: a warm VM stops after the pool's idle_timeout_s; a job that finds no warm VM gets a new one
  (a cold start bound to it) while the pool is below max_vms.
- always_on: min_vms VMs stay up around the clock (started ahead of demand when some are missing);
  VMs above them follow the fixed rules.
- adaptive (the default for dstack and simulated pools):
  * Idle timeout, ski rental: an idle VM costs its rate per second, and stopping it costs a cold start
    (C seconds of VM time, and of a user's waiting) when the next job comes. Which is cheaper depends
    on when that job comes: a VM that is one of n serving expects its next one after g = n / λ (λ: job
    starts in the last hour, C: the median of the pool's last cold starts). While g <= C the next job
    is likely sooner than a cold start would pay back: keep it 4C. From g >= 2C stop it after C/4 (a
    quick follow-up submission still finds it). In between, geometrically from 4C down to C/4. The
    reaper looks at the longest idle VM first and counts n down as it stops VMs, so the rate decides
    how many stay.
  * Scale out only when the expected wait exceeds a cold start: the newest queued job's wait is
    estimated from the busy VMs' remaining time (mean job length) and the VMs already starting; below C
    the queue waits for them. With no VM at all, a cold start is the only way (bound to the job).
  * Pre-warm hours (staff): one VM kept warm in those UTC hours, started a cold start ahead.
  * Credit: from 80 % used the idle timeout halves; from 95 % at most one VM (extra warm VMs stop).
  * Forecast pre-warming (staff switch, fleets.prewarm): VMs kept ready for the demand the pool's own
    history and declared events forecast, within a daily budget.
"""

from __future__ import annotations

import heapq
import math
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from enum import Enum

from django.conf import settings

from fleets.forecast import SLOT, Forecast, demand_forecast, slot_start
from fleets.models import SERVING_VM_STATES, Pool, PoolPolicy, PrewarmCharge, VMInstance, VMJob, VMState, prewarm_ranges
from fleets.prewarm import budget_slot, forecast_on, forecast_vms, horizon_s

DEFAULT_COLD_START_S = 360.0  # until the pool measured one: dstack's MI300X start takes 5-7 min
DEFAULT_JOB_S = 60.0
RATE_WINDOW = timedelta(hours=1)
COLD_STARTS_MEASURED = 5  # the median of the pool's last few cold starts
JOBS_MEASURED = 20  # the mean length of the pool's last warm jobs
JOBS_READ = 100  # of the job log per look: enough for the last hour unless it was busy
TIGHT_PCT, ONE_VM_PCT, HARD_STOP_PCT = Decimal(80), Decimal(95), Decimal(100)
KEEP_COLD_STARTS = 4  # how long a VM that jobs come to faster than a cold start stays idle, in cold starts


@dataclass(frozen=True)
class PoolSnapshot:
    """What the policy knows of a pool at one moment (pool_snapshot reads it: three queries)."""

    cold_start_s: float
    arrivals_per_s: float
    mean_job_s: float
    credit_used_pct: Decimal | None

    @property
    def arrivals_per_h(self) -> float:
        return self.arrivals_per_s * 3600


def pool_snapshot(*, pool: Pool, now: datetime) -> PoolSnapshot:
    starts = VMInstance.objects.filter(pool=pool, ready_at__isnull=False).order_by("-created_at").values_list(
        "created_at", "ready_at")[:COLD_STARTS_MEASURED]
    measured = [(ready - created).total_seconds() for created, ready in starts if ready is not None]
    configured = (pool.config or {}).get("cold_start_estimate_s") if isinstance(pool.config, dict) else None
    cold = statistics.median(measured) if measured else float(configured or DEFAULT_COLD_START_S)
    # The recent job log in one query: the starts of the last hour, and the lengths of the last warm jobs.
    recent = list(VMJob.objects.filter(pool=pool).order_by("-started_at").values_list(
        "started_at", "ended_at", "cold")[:JOBS_READ])
    since = now - RATE_WINDOW
    arrivals = sum(started > since for started, _, _ in recent)
    if arrivals == len(recent) == JOBS_READ:  # a busy hour: count it all
        arrivals = VMJob.objects.filter(pool=pool, started_at__gt=since).count()
    lengths = [(end - start).total_seconds() for start, end, cold_job in recent
               if end is not None and not cold_job][:JOBS_MEASURED]
    return PoolSnapshot(cold_start_s=max(cold, 1.0), arrivals_per_s=arrivals / RATE_WINDOW.total_seconds(),
                    mean_job_s=max(statistics.fmean(lengths), 1.0) if lengths else DEFAULT_JOB_S,
                    credit_used_pct=pool.credit_used_pct)


# ---- the rules -----------------------------------------------------------------------------------
def idle_timeout_s(*, pool: Pool, snapshot: PoolSnapshot | None, serving: int) -> float:
    """Seconds a warm VM of the pool may wait for work before it is stopped; `serving`: the pool's
    VMs that take work, this one included (the reaper counts down as it stops the longest idle)."""
    if pool.policy_in_effect != PoolPolicy.ADAPTIVE or snapshot is None:
        return float(pool.idle_timeout_s)
    cold = snapshot.cold_start_s
    gap = max(serving, 1) / snapshot.arrivals_per_s if snapshot.arrivals_per_s > 0 else math.inf
    if gap <= cold:
        timeout = KEEP_COLD_STARTS * cold  # the next job is likely sooner than a cold start: keep it
    elif gap >= 2 * cold:
        timeout = cold / 4  # seldom needed: stop it soon after a follow-up has had its minute
    else:  # in between, from keeping to stopping, geometrically
        timeout = KEEP_COLD_STARTS * cold * (1 / (4 * KEEP_COLD_STARTS)) ** (gap / cold - 1)
    if snapshot.credit_used_pct is not None and snapshot.credit_used_pct >= TIGHT_PCT:
        timeout /= 2
    return timeout


def idle_timeout_bound_s(*, pool: Pool, snapshot: PoolSnapshot | None) -> float | None:
    """The longest a warm VM of the pool waits for work before the policy stops it, whatever the
    arrivals; None where the policy keeps VMs up without work (always-on's floor, pre-warm hours).
    Billing books idle time past it (and the reaper's period) to the platform: only a platform that
    was not running can have kept a VM warm that long."""
    policy = pool.policy_in_effect
    if policy == PoolPolicy.ALWAYS_ON or (policy == PoolPolicy.ADAPTIVE and pool.prewarm_hours):
        return None
    if policy != PoolPolicy.ADAPTIVE or snapshot is None:
        return float(pool.idle_timeout_s)
    return KEEP_COLD_STARTS * snapshot.cold_start_s


AGENT_SILENCE_FLOOR_S = 300  # above two reconcile periods: the reconcile reaches every warm agent every 2 min


def agent_silence_limit_s(*, pool: Pool) -> int:
    """Seconds a VM's agent waits for a request from the platform before it stops itself
    (agent.self_stop): HIPJUDGE_AGENT_SILENCE_LIMIT, else twice the pool's idle timeout, at least
    AGENT_SILENCE_FLOOR_S. A working platform polls a running job every few seconds and asks each warm
    agent for its health at every reconcile; only a platform that is gone stays silent that long."""
    configured = settings.HIPJUDGE_AGENT_SILENCE_LIMIT
    if configured:
        return configured
    return max(2 * pool.idle_timeout_s, AGENT_SILENCE_FLOOR_S)


def vm_ceiling(*, pool: Pool) -> int:
    """The most VMs the pool may have up now."""
    used = pool.credit_used_pct
    if pool.policy_in_effect == PoolPolicy.ADAPTIVE and used is not None and used >= ONE_VM_PCT:
        return min(pool.max_vms, 1)
    return pool.max_vms


def in_prewarm_hours(*, pool: Pool, at: datetime) -> bool:
    hour = at.hour + at.minute / 60
    for first, last in prewarm_ranges(pool.prewarm_hours or ""):
        inside = first <= hour < last if first < last else (hour >= first or hour < last)
        if inside:
            return True
    return False


def vm_floor(*, pool: Pool, snapshot: PoolSnapshot | None, now: datetime) -> int:
    """VMs the pool keeps up even without work (started ahead of demand when missing); none at the
    hard stop (billing stops warm VMs of paid pools then)."""
    if not pool.enabled or (pool.credit_used_pct is not None and pool.credit_used_pct >= HARD_STOP_PCT):
        return 0
    policy = pool.policy_in_effect
    if policy == PoolPolicy.ALWAYS_ON:
        return min(max(pool.min_vms, 1), pool.max_vms)
    if policy == PoolPolicy.ADAPTIVE and pool.prewarm_hours:
        ahead = snapshot.cold_start_s if snapshot is not None else DEFAULT_COLD_START_S
        if in_prewarm_hours(pool=pool, at=now) or in_prewarm_hours(pool=pool, at=now + timedelta(seconds=ahead)):
            return min(1, pool.max_vms)
    return 0


def needs_snapshot(pool: Pool) -> bool:
    return pool.policy_in_effect == PoolPolicy.ADAPTIVE


def expected_wait_s(*, snapshot: PoolSnapshot, serving: list[VMInstance], queued: int, now: datetime) -> float:
    """The newest of `queued` jobs' wait if no VM is added: each goes to the VM that frees first."""
    job = snapshot.mean_job_s
    free_at = []
    for vm in serving:
        if vm.state == VMState.BUSY:
            elapsed = (now - (vm.last_used_at or vm.state_changed_at)).total_seconds()
            free_at.append(max(job - elapsed, job / 4))
        elif vm.state == VMState.PROVISIONING:
            starting = max(snapshot.cold_start_s - (now - vm.created_at).total_seconds(), 0.0)
            free_at.append(starting + (job if vm.job_ref else 0.0))
        else:
            free_at.append(0.0)
    if not free_at:
        return float("inf")
    heapq.heapify(free_at)
    wait = 0.0
    for _ in range(max(queued, 1)):
        wait = heapq.heappop(free_at)
        heapq.heappush(free_at, wait + job)
    return wait


class Scale(Enum):
    WAIT = "wait"  # the job waits for a VM that is serving or starting
    BIND = "bind"  # start a VM for this job (its cold start)
    PRESTART = "prestart"  # start a VM for the pool; the job waits for whichever frees first


def scale_decision(*, pool: Pool, live: list[VMInstance], queued: int, now: datetime) -> Scale:
    """A job found no warm VM: what to do. `live` are the pool's VMs that count against max_vms."""
    snapshot = pool_snapshot(pool=pool, now=now) if needs_snapshot(pool) else None
    if len(live) >= vm_ceiling(pool=pool):
        return Scale.WAIT
    serving = [vm for vm in live if vm.state in SERVING_VM_STATES]
    if snapshot is None or not serving:
        return Scale.BIND
    if expected_wait_s(snapshot=snapshot, serving=serving, queued=queued, now=now) > snapshot.cold_start_s:
        return Scale.PRESTART
    return Scale.WAIT


@dataclass(frozen=True)
class ReapPlan:
    stop: list[tuple[VMInstance, str]]
    start: int  # VMs to start ahead of demand (always-on, pre-warm hours, forecast)
    floor: int = 0  # VMs kept up without work now
    forecast: Forecast | None = None  # the forecast's, where the pool pre-warms from it
    forecast_starts: int = 0  # of `start`, those for the forecast alone (charged, their reason recorded)
    charge: list[VMInstance] = field(default_factory=list)  # kept by the forecast alone: charge this slot


def _idle_since(vm: VMInstance) -> datetime:
    return vm.last_used_at or vm.ready_at or vm.created_at


def _reap_snapshot(*, pool: Pool, live: list[VMInstance], now: datetime) -> PoolSnapshot | None:
    """The snapshot reap_plan reads: only an adaptive pool's, and only with a warm VM, pre-warm hours or
    forecast pre-warming."""
    warm = any(vm.state == VMState.WARM for vm in live)
    wanted = warm or pool.prewarm_hours or forecast_on(pool)
    return pool_snapshot(pool=pool, now=now) if needs_snapshot(pool) and wanted else None


def reap_plan(*, pool: Pool, live: list[VMInstance], now: datetime) -> ReapPlan:
    """Which warm VMs of the pool to stop now (longest idle first), and how many to start."""
    return _reap_plan(pool=pool, live=live, now=now, snapshot=_reap_snapshot(pool=pool, live=live, now=now))


def _reap_plan(*, pool: Pool, live: list[VMInstance], now: datetime, snapshot: PoolSnapshot | None) -> ReapPlan:
    warm = sorted((vm for vm in live if vm.state == VMState.WARM), key=_idle_since)
    ceiling, base_floor = vm_ceiling(pool=pool), vm_floor(pool=pool, snapshot=snapshot, now=now)
    forecast, floor = None, base_floor
    if snapshot is not None and forecast_on(pool):
        forecast = demand_forecast(pool=pool, now=now, horizon_s=horizon_s(snapshot.cold_start_s))
        floor = max(base_floor, forecast_vms(pool=pool, forecast=forecast, mean_job_s=snapshot.mean_job_s,
                                             ceiling=ceiling))
    serving = sum(vm.state in SERVING_VM_STATES for vm in live)
    up = len(live)
    stop: list[tuple[VMInstance, str]] = []
    held: list[VMInstance] = []
    for vm in warm:
        # With `serving` VMs up, this one (the longest idle left) is the one the pool needs least.
        timeout = idle_timeout_s(pool=pool, snapshot=snapshot, serving=serving)
        if up > ceiling:
            stop.append((vm, f"The credit is {pool.credit_used_pct} % used: the pool keeps at most {ceiling} VM."))
        elif (now - _idle_since(vm)).total_seconds() < timeout:
            continue
        elif up > floor:
            stop.append((vm, _idle_reason(timeout, snapshot)))
        else:
            if up > base_floor:
                held.append(vm)  # past its timeout, kept for the forecast alone
            continue
        up, serving = up - 1, serving - 1
    start = max(0, min(floor, ceiling) - up)
    if forecast is None:
        return ReapPlan(stop=stop, start=start, floor=floor)
    base_starts = min(start, max(0, min(base_floor, ceiling) - up))
    stopped = {vm.pk for vm, _ in stop}
    budget = budget_slot(pool=pool, live=[vm for vm in live if vm.pk not in stopped], held=held,
                         starts=start - base_starts, now=now)
    stop += [(vm, f"The pool's pre-warm budget ({pool.prewarm_budget_usd} USD a day) is spent.") for vm in budget.stop]
    return ReapPlan(stop=stop, start=base_starts + budget.starts, floor=floor, forecast=forecast,
                    forecast_starts=budget.starts, charge=budget.charge)


def _seconds_after(since: datetime, seconds: float) -> datetime:
    """The first microsecond at which `seconds` have passed since `since` as reap_plan compares them
    (timedelta rounds to the microsecond, possibly down)."""
    at = since + timedelta(seconds=seconds)
    return at if (at - since).total_seconds() >= seconds else at + timedelta(microseconds=1)


def _window_starts(*, pool: Pool, now: datetime) -> list[datetime]:
    """The job starts pool_snapshot counts as the last hour's arrivals at `now`, oldest first."""
    return sorted(VMJob.objects.filter(pool=pool, started_at__gt=now - RATE_WINDOW).values_list(
        "started_at", flat=True))


def _floor_changes(*, pool: Pool, ahead_s: float, now: datetime) -> list[datetime]:
    """Instants after `now` (within two days) at which vm_floor may change: a pre-warm range's ends,
    and a cold start before them."""
    if pool.policy_in_effect != PoolPolicy.ADAPTIVE or not pool.prewarm_hours:
        return []
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    ends = {hour for pair in prewarm_ranges(pool.prewarm_hours) for hour in pair}
    out = []
    for day in range(3):
        for hour in ends:
            edge = midnight + timedelta(days=day, hours=hour)
            out += [at for at in (edge, edge - timedelta(seconds=ahead_s)) if at > now]
    return out


def reap_due_at(*, pool: Pool, live: list[VMInstance], now: datetime) -> datetime | None:
    """The earliest instant from `now` at which reap_plan would stop or start a VM of the pool if
    nothing else happened meanwhile (no job, no VM change, no change to the credit used); None when
    that never comes. Between such happenings only the clock moves: an idle VM's idle time grows, and
    the adaptive timeout changes only when a job start leaves the hour pool_snapshot counts (it shortens
    then), or at a pre-warm edge. A caller may skip the reaper until then (the simulator does)."""
    snapshot = _reap_snapshot(pool=pool, live=live, now=now)
    plan = _reap_plan(pool=pool, live=live, now=now, snapshot=snapshot)
    if plan.stop or plan.start or plan.charge:
        return now
    edges = _floor_changes(pool=pool, ahead_s=snapshot.cold_start_s if snapshot else DEFAULT_COLD_START_S, now=now)
    if plan.forecast is not None:
        edges.append(slot_start(now) + SLOT)  # the forecast, and the slot a charge pays for, change there
    due = min(edges, default=None)
    warm = sorted((vm for vm in live if vm.state == VMState.WARM), key=_idle_since)
    if plan.forecast is not None and len(live) <= plan.floor:
        # Nothing stops, but a warm VM that passes its timeout is held for the forecast from then on,
        # and charged at that pass: the next to pass it is the longest idle not charged this slot.
        charged = set(PrewarmCharge.objects.filter(slot=slot_start(now), vm__in=[vm.pk for vm in warm]).values_list(
            "vm_id", flat=True))
        warm = [vm for vm in warm if vm.pk not in charged]
    elif len(live) <= plan.floor:
        return due  # nothing to stop before the floor changes (the ceiling changes only with the credit)
    if not warm:
        return due
    # Only the longest idle VM matters: the others wait as long, having waited less.
    idle_since, serving = _idle_since(warm[0]), sum(vm.state in SERVING_VM_STATES for vm in live)
    if snapshot is None:
        stop_at = _seconds_after(idle_since, idle_timeout_s(pool=pool, snapshot=None, serving=serving))
        return min(stop_at, due) if due else stop_at
    # The hour's count falls by one as each start in it turns an hour old: walk those steps.
    leaving = [started + RATE_WINDOW for started in _window_starts(pool=pool, now=now)]
    step_start = now
    for index in range(len(leaving) + 1):
        count = len(leaving) - index
        stepped = PoolSnapshot(cold_start_s=snapshot.cold_start_s, arrivals_per_s=count / RATE_WINDOW.total_seconds(),
                               mean_job_s=snapshot.mean_job_s, credit_used_pct=snapshot.credit_used_pct)
        stop_at = max(step_start, _seconds_after(idle_since, idle_timeout_s(pool=pool, snapshot=stepped,
                                                                                 serving=serving)))
        if index == len(leaving) or stop_at < leaving[index]:
            return min(stop_at, due) if due else stop_at
        step_start = leaving[index]
    return due  # (not reached: the last step has no end)


def _idle_reason(timeout: float, snapshot: PoolSnapshot | None) -> str:
    if snapshot is None:
        return f"Idle for more than {timeout:.0f} s."
    return (f"Idle for more than {timeout:.0f} s (adaptive: cold start ~{snapshot.cold_start_s:.0f} s, "
            f"{snapshot.arrivals_per_h:.1f} jobs in the last hour).")


def policy_summary(*, pool: Pool, now: datetime) -> str:
    """What the pool's policy does right now, in a sentence or two (the admin shows it)."""
    policy = pool.policy_in_effect
    if policy == PoolPolicy.FIXED:
        return f"Fixed: a warm VM stops after {pool.idle_timeout_s} s idle; a job with no warm VM gets a cold start."
    if policy == PoolPolicy.ALWAYS_ON:
        return (f"Always on: {vm_floor(pool=pool, snapshot=None, now=now)} VM(s) kept up; any others stop after "
                f"{pool.idle_timeout_s} s idle.")
    snapshot = pool_snapshot(pool=pool, now=now)
    one = idle_timeout_s(pool=pool, snapshot=snapshot, serving=1)
    parts = [f"Adaptive: cold start ~{snapshot.cold_start_s:.0f} s, {snapshot.arrivals_per_h:.0f} job(s) in the last "
             f"hour, jobs ~{snapshot.mean_job_s:.0f} s; one idle VM now waits {one:.0f} s; a new VM starts only when "
             f"the expected wait exceeds {snapshot.cold_start_s:.0f} s."]
    if pool.prewarm_hours:
        parts.append(f"One VM kept warm {pool.prewarm_hours} UTC.")
    if forecast_on(pool):
        parts.append(f"VMs started ahead of the forecast demand, for at most {pool.prewarm_budget_usd} USD a day.")
    if pool.credit_used_pct is not None and pool.credit_used_pct >= TIGHT_PCT:
        cap = " and at most one VM" if pool.credit_used_pct >= ONE_VM_PCT else ""
        parts.append(f"Credit {pool.credit_used_pct} % used: idle timeout halved{cap}.")
    return " ".join(parts)

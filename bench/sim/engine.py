"""One simulated run: a trace replayed through the platform's own code on a simulated clock.

Real: submission_create (validation, access, quotas, caps), the fair queue and dispatcher
(submissions.tasks.dispatch), vm_acquire / vm_provision / vm_release, the pool policy, the minute
jobs as setup_schedules declares them (fleets.tasks.reap_idle, billing.tasks.accrue with alerts and
the hard stop, submissions.tasks.sweep), and billing's accrual at every VM state change.
Simulated: the clock (core.clock), the task queue (core.queue: a task runs at the instant it is
queued, in order, as an idle worker would take it), the cloud (fleets.backends.sim with agent
"none": drawn cold starts, no-capacity failures, a price) and the agent: a job keeps its VM busy
for its length and ends with its mode's success status. Nothing sleeps.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import override_settings

from bench.sim.specs import CloudSpec, PolicySpec, Sample
from bench.sim.traces import Arrival, Trace
from billing.models import UserSpendLimit
from billing.services import credit_grant_create, ledger_accrue_all, ledger_adjust
from billing.tasks import accrue
from core.clock import clock_use
from core.exceptions import ApplicationError
from core.queue import queue_use
from fleets.backends import CapacityError, ProvisionError
from fleets.backends.sim import SimBackend, sim_forget
from fleets.models import LIVE_VM_STATES, Pool, PoolEvent, VMInstance, VMState
from fleets.services import vm_provision, vm_reap_due_at, vm_release
from fleets.signals import vm_state_changed
from fleets.tasks import provision as provision_task
from fleets.tasks import reap_idle
from submissions.capacity import submissions_refuse_for_capacity
from submissions.leases import lease_claim
from submissions.models import RUNNING_STATUSES, SUCCESS_BY_MODE, Status, Submission
from submissions.services import finish_locked, lock_submission, submission_create, submission_requeue_or_fail
from submissions.tasks import dispatch as dispatch_task
from submissions.tasks import sweep

POOL = "sim"
SOURCE = '#include <hip/hip_runtime.h>\nextern "C" void solution() {}  // a simulated job\n'
TICK = timedelta(minutes=1)  # every periodic job of setup_schedules runs each minute
SAMPLE_EVERY = 10  # ticks between the chart's samples
RUNNER = "costsim"
SIM_SETTINGS: dict[str, Any] = {
    # The simulated users are the trace: no per-user quota or cap may drop their work.
    "HIPJUDGE_QUOTA_DAILY": 10**9, "HIPJUDGE_QUOTA_CONCURRENT": 10**9, "HIPJUDGE_USER_MONTHLY_CAP": None,
    "HIPJUDGE_USER_DAILY_GPU_SECONDS": None, "HIPJUDGE_BILLING_REQUIRE_GRANT": True,
    "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
}


@dataclass
class Run:
    trace: Trace
    policy: PolicySpec
    cloud: CloudSpec
    pool: Pool | None = None
    submitted: dict[str, Arrival] = field(default_factory=dict)
    refused: int = 0
    samples: list[Sample] = field(default_factory=list)
    end: datetime | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0


class Engine:
    def __init__(self, trace: Trace, policy: PolicySpec, cloud: CloudSpec, *, pool: str = POOL) -> None:
        self.run = Run(trace=trace, policy=policy, cloud=cloud)
        self.pool = pool
        self.now = trace.start
        self._events: list[tuple[datetime, int, Callable[..., None], tuple[Any, ...]]] = []
        self._seq = itertools.count()
        self._tasks: list[tuple[str, tuple[Any, ...]]] = []
        self._pending_dispatch: set[str] = set()
        self._running: set[tuple[str, int]] = set()
        self._backend = SimBackend()
        self._users: list[Any] = []
        self._vms: Counter[str] = Counter()  # VMs by state, from fleets' vm_state_changed signal
        # The minute jobs run at whole simulated minutes from the trace's start, but only at the minutes
        # where one of them can do something (see _wake).
        self._wake_index: int | None = None  # the minute of the one pending wake-up
        self._last_minute = 0  # the last minute whose jobs ran
        self._changes = 0  # things that happened: non-wake events and VM state changes
        self._seen_by_sweep = self._seen_by_reaper = -1  # self._changes when each last looked
        self._reap_at: datetime | None = None  # the reaper's next due instant, as of _seen_by_reaper

    # ---- the loop ------------------------------------------------------------------------------
    def execute(self) -> Run:
        began, cpu = time.perf_counter(), time.process_time()
        trace, cloud = self.run.trace, self.run.cloud
        end = trace.start + timedelta(seconds=trace.span_s + cloud.tail_s)
        vm_state_changed.connect(self._vm_changed, dispatch_uid="costsim")
        try:
            self._loop(end)
        finally:
            vm_state_changed.disconnect(dispatch_uid="costsim")
        self.run.end, self.run.wall_s = end, time.perf_counter() - began
        self.run.cpu_s = time.process_time() - cpu
        return self.run

    def _loop(self, end: datetime) -> None:
        trace = self.run.trace
        with override_settings(**SIM_SETTINGS), clock_use(lambda: self.now), queue_use(self._take):
            self._set_up()
            for index, arrival in enumerate(trace.arrivals):
                self._at(trace.start + timedelta(seconds=arrival.at_s), self._arrive, index)
            self._wake_at_minute(1)
            while self._events and self._events[0][0] <= end:
                at, _, handler, args = heapq.heappop(self._events)
                self.now = at
                handler(*args)
                self._drain()
                if handler != self._wake:
                    self._changes += 1  # the next minute looks again
                    self._wake_at_minute(self._minute_at_or_after(self.now))
            self.now = end
            ledger_accrue_all(now=end)

    def _at(self, at: datetime, handler: Callable[..., None], *args: Any) -> None:
        heapq.heappush(self._events, (max(at, self.now), next(self._seq), handler, args))

    def _take(self, func: str, *args: Any) -> None:
        if func == "submissions.tasks.dispatch":
            if args[0] in self._pending_dispatch:
                return  # already queued at this instant: one run dispatches everything it can
            self._pending_dispatch.add(args[0])
        self._tasks.append((func, args))

    def _drain(self) -> None:
        while self._tasks:
            func, args = self._tasks.pop(0)
            if func == "submissions.tasks.dispatch":
                self._pending_dispatch.discard(args[0])
                dispatch_task(*args)
            elif func == "submissions.tasks.run":
                self._start(*args)
            elif func == "fleets.tasks.provision":
                self._prestarted(*args)

    # ---- set-up ----------------------------------------------------------------------------------
    def _set_up(self) -> None:
        policy, cloud = self.run.policy, self.run.cloud
        sim_forget(pool_name=self.pool)
        users = max((a.user for a in self.run.trace.arrivals), default=0) + 1
        model = get_user_model()
        tag = uuid.uuid4().hex[:6]
        self._users = model.objects.bulk_create([model(username=f"sim-{tag}-{i}", password="!") for i in range(users)])
        UserSpendLimit.objects.bulk_create([UserSpendLimit(user=u, monthly_cap=None) for u in self._users])
        self.run.pool = Pool.objects.create(
            name=self.pool, title="Simulated MI300X pool", backend="sim", device="hip", gpu_name="MI300X",
            gpu_count=1, max_vms=policy.max_vms or cloud.max_vms, idle_timeout_s=policy.idle_timeout_s,
            policy=policy.policy, min_vms=policy.min_vms, prewarm_hours=policy.prewarm_hours,
            forecast_prewarm=policy.forecast, prewarm_budget_usd=policy.prewarm_budget,
            provision_timeout_s=1800, hourly_rate=cloud.rate,
            config={"agent": "none", "cold_start_s": list(cloud.cold_start_s), "seed": cloud.seed,
                    "no_capacity_rate": cloud.no_capacity_rate})
        trace = self.run.trace
        PoolEvent.objects.bulk_create([  # declared ahead, as staff would: no arrival of the trace is read
            PoolEvent(pool=self.run.pool, title=event.title, starts_at=trace.start + timedelta(seconds=event.from_s),
                      ends_at=trace.start + timedelta(seconds=event.to_s), expected_per_h=event.expected_per_h)
            for event in trace.events])
        credit_grant_create(name="simulated credit", amount=cloud.credit, starts_at=self.now - timedelta(days=1))
        if cloud.credit_used_pct > 0:
            ledger_adjust(pool=self.run.pool, amount=cloud.credit * cloud.credit_used_pct / 100,
                          note="costsim: credit spent before the trace", period_start=self.now - timedelta(hours=1),
                          period_end=self.now - timedelta(hours=1))
        self._drain()

    # ---- what happens ----------------------------------------------------------------------------
    def _arrive(self, index: int) -> None:
        arrival = self.run.trace.arrivals[index]
        try:
            submission = submission_create(user=self._users[arrival.user], problem=arrival.problem, language="hip",
                                           source=SOURCE, mode=arrival.mode, pool_name=self.pool)
        except ApplicationError:
            self.run.refused += 1
            return
        self.run.submitted[str(submission.pk)] = arrival

    def _start(self, submission_id: str) -> None:
        """The runner task: wait out a cold start, or start the job on a warm VM."""
        submission = Submission.objects.filter(pk=submission_id, status__in=RUNNING_STATUSES).only(
            "attempt", "vm_id").first()
        if submission is None or submission.vm_id is None or (submission_id, submission.attempt) in self._running:
            return
        self._running.add((submission_id, submission.attempt))
        lease_claim(submission_id=submission_id, owner=RUNNER, seconds=86400)
        vm = VMInstance.objects.select_related("pool").get(pk=submission.vm_id)
        if vm.state == VMState.PROVISIONING:
            plan = self._backend.cold_start_plan(vm)
            self._at(vm.created_at + timedelta(seconds=plan.seconds), self._ready, submission_id, vm.pk,
                     submission.attempt)
        else:
            self._job(submission_id, submission.attempt)

    def _ready(self, submission_id: str, vm_id: uuid.UUID, attempt: int) -> None:
        vm = VMInstance.objects.select_related("pool").get(pk=vm_id)
        try:
            vm_provision(vm=vm)
        except CapacityError as exc:
            submissions_refuse_for_capacity(pool_id=vm.pool_id, reason=str(exc), vm_id=vm_id,
                                            submission_id=submission_id, attempt=attempt)
            return
        except ProvisionError as exc:
            submission_requeue_or_fail(submission_id=submission_id, attempt=attempt, vm_id=vm_id,
                                       reason=f"Could not start a VM: {exc}")
            return
        self._job(submission_id, attempt)

    def _job(self, submission_id: str, attempt: int) -> None:
        Submission.objects.filter(pk=submission_id, started_at__isnull=True).update(started_at=self.now)
        length = timedelta(seconds=self.run.submitted[submission_id].duration_s)
        self._at(self.now + length, self._done, submission_id, attempt)

    def _done(self, submission_id: str, attempt: int) -> None:
        with transaction.atomic():
            submission = lock_submission(submission_id)
            if submission is None or submission.status not in RUNNING_STATUSES or submission.attempt != attempt:
                return
            finish_locked(submission, status=SUCCESS_BY_MODE[submission.mode], reason="A simulated job.")
            vm_id = submission.vm_id
        vm = VMInstance.objects.select_related("pool").get(pk=vm_id)
        vm_release(vm=vm, job_ref=submission_id)

    def _prestarted(self, vm_id: str) -> None:
        vm = VMInstance.objects.select_related("pool").filter(pk=vm_id, state=VMState.PROVISIONING).first()
        if vm is not None:
            plan = self._backend.cold_start_plan(vm)
            self._at(vm.created_at + timedelta(seconds=plan.seconds), provision_task, vm_id)

    # ---- the minute jobs ----------------------------------------------------------------------------
    def _minute_at_or_after(self, at: datetime) -> int:
        """The first whole simulated minute at or after `at` whose jobs have not run yet."""
        index = math.ceil((at - self.run.trace.start) / TICK)
        return max(index, self._last_minute + 1)

    def _wake_at_minute(self, index: int) -> None:
        if self._wake_index is None or index < self._wake_index:
            self._wake_index = index
            self._at(self.run.trace.start + index * TICK, self._wake, index)

    def _wake(self, index: int) -> None:
        """The minute jobs of setup_schedules at one simulated minute, each run only where it can do
        something (the minutes skipped are the ones where every job provably does nothing):
        - the reaper (fleets.tasks.reap_idle) from the instant fleets.services.vm_reap_due_at gives,
          asked again after anything happens;
        - the sweep (submissions.tasks.sweep) while the queue is not empty, at the first minute after
          anything happened (its dispatch: with nothing new, the pool's policy only ever says "wait"
          longer, tests/fleets/test_policy.py), and when the oldest queued job's wait expires; the
          simulated runner never dies, so no lease lapses and no VM is orphaned;
        - billing's periodic accrual every `billing_every` minutes while a VM is up: accrual at every
          VM state change books the same time, the periodic one only brings the spend up to date in
          between (for the alerts, the hard stop and the policy's credit rules).
        Then the chart's sample every SAMPLE_EVERY minutes."""
        if index != self._wake_index:
            return  # superseded by an earlier wake-up
        self._wake_index, self._last_minute = None, index
        if self._seen_by_reaper != self._changes:
            self._seen_by_reaper, self._reap_at = self._changes, vm_reap_due_at(now=self.now)
        if self._reap_at is not None and self._reap_at <= self.now:
            reap_idle()
            self._changes += 1
        queue = Submission.objects.filter(pool=self.run.pool, status=Status.IN_QUEUE)
        oldest = queue.order_by("queued_at").values_list("queued_at", flat=True).first()
        expires = oldest + timedelta(seconds=settings.HIPJUDGE_QUEUE_TIMEOUT) if oldest else None
        if oldest is not None and (self._seen_by_sweep != self._changes or (expires and expires < self.now)):
            sweep()
        self._seen_by_sweep = self._changes  # (with no queue there is nothing to sweep until something happens)
        if index % self.run.cloud.billing_every == 0 and any(self._vms[state] for state in LIVE_VM_STATES):
            accrue()
            self._changes += 1  # the credit used may have moved: the policy's rules read it
        self._drain()
        if index % SAMPLE_EVERY == 0:
            self._sample()
        self._plan_next_wake(expires)

    def _plan_next_wake(self, expires: datetime | None) -> None:
        if self._seen_by_reaper != self._changes:
            self._seen_by_reaper, self._reap_at = self._changes, vm_reap_due_at(now=self.now)
        minutes = [self._minute_at_or_after(self.now), ] if self._seen_by_sweep != self._changes else []
        every = self.run.cloud.billing_every
        if any(self._vms[state] for state in LIVE_VM_STATES):
            minutes.append((self._last_minute // every + 1) * every)
        minutes.append((self._last_minute // SAMPLE_EVERY + 1) * SAMPLE_EVERY)
        for due in (self._reap_at, expires):
            if due is not None:
                minutes.append(self._minute_at_or_after(due + (timedelta(microseconds=1) if due is expires else
                                                                timedelta(0))))
        self._wake_at_minute(min(minutes))

    def _vm_changed(self, sender: Any, vm_id: Any, pool_id: Any, old: str | None, new: str, **kwargs: Any) -> None:
        if old is not None:
            self._vms[old] -= 1
        self._vms[new] += 1
        self._changes += 1

    def _sample(self) -> None:
        from bench.sim.measure import sample_now  # the measures read the same rows as the report

        assert self.run.pool is not None
        self.run.samples.append(sample_now(pool=self.run.pool, start=self.run.trace.start, now=self.now))

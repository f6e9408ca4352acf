"""Every write to Pool and VMInstance: acquire, provision, release, stop, fail, reap, reconcile.

State changes are conditional UPDATEs (`WHERE state = <expected>`), so two workers racing for the
same VM cannot both win, on SQLite as on PostgreSQL. Acquisition additionally locks candidate rows
with SKIP LOCKED where the database has it, so concurrent dispatchers do not queue behind each
other, and locks the pool row before counting VMs, so max_vms holds under any number of workers.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from datetime import datetime, timedelta
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from django.db import transaction
from django.db.models import Case, F, Value, When

from core import clock
from core.locks import locked
from core.logs import log_event_on_commit
from core.queue import enqueue
from fleets.agent_client import AgentClient, AgentError
from fleets.backends import Backend, ProvisionError, get_backend
from fleets.backends.local import LOCAL_PROVISION_TIMEOUT_S
from fleets.forecast import HISTORY_KEPT
from fleets.models import (
    LIVE_VM_STATES,
    Pool,
    PoolArrivals,
    PoolPolicy,
    PrewarmCharge,
    PrewarmDecision,
    VMInstance,
    VMJob,
    VMState,
)
from fleets.models import Backend as BackendKind
from fleets.policy import Scale, reap_due_at, reap_plan, scale_decision
from fleets.prewarm import forecast_on
from fleets.prewarm_services import prewarm_charge, prewarm_start_record
from fleets.signals import vm_lost, vm_state_changed

log = logging.getLogger(__name__)
JOB_LOG_KEPT = timedelta(days=2)
PRESTART_REASON = "Starting ahead of demand."


def _set_state(vm: VMInstance, *, expect: tuple[str, ...], to: str, reason: str = "",
               where: dict[str, Any] | None = None, **fields: Any) -> bool:
    """Move `vm` to `to` if it is in one of `expect` (and matches `where`); True when this call
    made the change."""
    now = clock.now()
    job_before = vm.job_ref
    changed = VMInstance.objects.filter(pk=vm.pk, state__in=expect, **(where or {})).update(
        state=to, state_reason=reason, state_changed_at=now, **fields)
    if changed:
        old = vm.state
        if job_before and fields.get("job_ref") == "":
            VMJob.objects.filter(vm_id=vm.pk, job_ref=job_before, ended_at__isnull=True).update(ended_at=now)
        pool = vm.pool if VMInstance.pool.is_cached(vm) else None
        vm.refresh_from_db()
        if pool is not None and pool.pk == vm.pool_id:
            vm.pool = pool  # the pool read with the VM in this call path (refresh_from_db forgets it)
        log_event_on_commit(log, "vm.state", "VM %s %s -> %s%s", vm.pk, old, to, f": {reason}" if reason else "",
                            level=logging.WARNING if to == VMState.FAILED else logging.INFO,
                            vm=vm.pk, pool=vm.pool_id, job=vm.job_ref or job_before, old=old, new=to)
        transaction.on_commit(lambda: vm_state_changed.send(
            sender=VMInstance, vm_id=vm.pk, pool_id=vm.pool_id, old=old, new=to))
    return bool(changed)


# ---- acquisition -------------------------------------------------------------------------------
def vm_acquire(*, pool: Pool, job_ref: str, queued: int = 1,
               avoid_vm: uuid.UUID | str | None = None) -> tuple[VMInstance, bool] | None:
    """A VM for `job_ref`: a WARM one (→ BUSY, cold=False), else what the pool's policy says
    (fleets.policy.scale_decision): a new PROVISIONING VM reserved for the job (cold=True), or None
    while the job should wait, perhaps for a VM this call started for the pool. `queued`: jobs of the
    pool waiting for a VM, this one included. `avoid_vm`: a warm VM other than this one first, where
    there is one (a second judging of a record). Call inside the caller's transaction so that a
    failed claim of the work rolls the VM back too."""
    if not job_ref:
        raise ValueError("job_ref is required")
    now = clock.now()
    with transaction.atomic():
        candidates = locked(VMInstance.objects.filter(pool=pool, state=VMState.WARM), skip_locked=True)
        # Most recently used first: its compile cache and page cache are the warmest.
        order = [F("last_used_at").desc(nulls_last=True)]
        if avoid_vm is not None:
            order.insert(0, Case(When(pk=avoid_vm, then=Value(1)), default=Value(0)).asc())
        for vm in candidates.order_by(*order)[:4]:
            if _set_state(vm, expect=(VMState.WARM,), to=VMState.BUSY, job_ref=job_ref,
                          last_used_at=now, jobs_started=F("jobs_started") + 1):
                VMJob.objects.create(pool=pool, vm=vm, job_ref=job_ref, started_at=now)
                return vm, False

        held = locked(Pool.objects.filter(pk=pool.pk)).first()
        if held is None:
            return None
        live = list(VMInstance.objects.filter(pool=pool, state__in=LIVE_VM_STATES))
        decision = scale_decision(pool=held, live=live, queued=queued, now=now)
        if decision == Scale.PRESTART:
            _vm_create(held, job_ref="", now=now)
        if decision != Scale.BIND:
            return None
        vm = _vm_create(held, job_ref=job_ref, now=now)
        VMJob.objects.create(pool=pool, vm=vm, job_ref=job_ref, started_at=now, cold=True)
        return vm, True


def _vm_create(pool: Pool, *, job_ref: str, now: datetime) -> VMInstance:
    """A new PROVISIONING VM (the caller holds the pool row). Reserved for `job_ref`, whose runner
    starts it; without one it is the pool's, started by the fleets.tasks.provision task."""
    vm = VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, job_ref=job_ref,
                                   token=secrets.token_urlsafe(32), jobs_started=1 if job_ref else 0,
                                   last_used_at=now if job_ref else None, created_at=now, state_changed_at=now)
    log_event_on_commit(log, "vm.state", "VM %s created -> %s%s", vm.pk, VMState.PROVISIONING,
                        "" if job_ref else " (ahead of demand)", vm=vm.pk, pool=pool.pk, job=job_ref,
                        new=VMState.PROVISIONING)
    transaction.on_commit(lambda: vm_state_changed.send(
        sender=VMInstance, vm_id=vm.pk, pool_id=pool.pk, old=None, new=VMState.PROVISIONING))
    if not job_ref:
        vm_id = str(vm.pk)
        transaction.on_commit(lambda: enqueue("fleets.tasks.provision", vm_id, timeout=pool.provision_timeout_s + 60))
    return vm


def vm_prestart(*, pool: Pool) -> VMInstance | None:
    """Start a VM for the pool ahead of demand (always-on, pre-warm, scale-out), below max_vms."""
    with transaction.atomic():
        held = locked(Pool.objects.filter(pk=pool.pk)).first()
        if held is None or held.max_vms <= VMInstance.objects.filter(
                pool=pool, state__in=LIVE_VM_STATES).count():
            return None
        return _vm_create(held, job_ref="", now=clock.now())


def vm_provision(*, vm: VMInstance) -> VMInstance:
    """Start a PROVISIONING VM through its backend and mark it BUSY for the job that reserved it
    (or WARM if none). On failure the VM ends FAILED and ProvisionError propagates."""
    if vm.state != VMState.PROVISIONING:
        return vm
    backend = get_backend(vm.pool.backend)
    try:
        done = backend.provision(vm)
    except ProvisionError as exc:
        vm_fail(vm=vm, reason=str(exc), notify=False)
        raise
    except Exception as exc:  # a backend bug must still end the VM, not leave it provisioning
        log.exception("provisioning VM %s crashed", vm.pk)
        vm_fail(vm=vm, reason=f"Provisioning failed unexpectedly ({type(exc).__name__}).", notify=False)
        raise ProvisionError(f"Provisioning failed unexpectedly ({type(exc).__name__}: {exc}).") from exc
    fields: dict[str, Any] = {"base_url": done.base_url, "pid": done.pid, "handle": done.handle,
                              "agent_info": done.agent_info, "ready_at": clock.now()}
    with transaction.atomic():
        if not _set_state(vm, expect=(VMState.PROVISIONING,), to=VMState.BUSY if vm.job_ref else VMState.WARM,
                          **fields):
            vm.refresh_from_db()
            started = vm.state in (VMState.WARM, VMState.BUSY, VMState.DRAINING)
            if started and (vm.pid, vm.handle) == (done.pid, done.handle):
                return vm  # another runner (this one's lease had lapsed) finished the same start-up
            # Failed or stopped meanwhile (reaper, staff): do not leave the new agent running.
            backend.stop(vm)
            raise ProvisionError(f"The VM was {vm.state.lower()} while it started: {vm.state_reason}")
    return vm


def vm_prestarted_provision(*, vm_id: Any) -> bool:
    """Provision a VM started ahead of demand; the conditional UPDATE of its reason claims it, so a
    task run twice starts it once. A failure leaves it FAILED with the reason (no job waits on it)."""
    claimed = VMInstance.objects.filter(pk=vm_id, state=VMState.PROVISIONING, job_ref="", state_reason="").update(
        state_reason=PRESTART_REASON)
    vm = VMInstance.objects.select_related("pool").filter(pk=vm_id).first()
    if not claimed or vm is None:
        return False
    try:
        vm_provision(vm=vm)
    except ProvisionError as exc:
        log.warning("VM %s started ahead of demand failed: %s", vm_id, exc)
        return False
    return True


def pools_credit_used_set(*, used_pct: Decimal | None, pool_ids: list[Any]) -> int:
    """Billing tells the paid pools (`pool_ids`) how much of the credit is used, in whole percent (100
    at the hard stop): the adaptive policy tightens at 80 and 95, and no policy keeps VMs up ahead of
    demand at 100. Other pools hold None. Only rows whose value changes are written."""
    value = whole_pct(used_pct)
    paid = Pool.objects.filter(pk__in=pool_ids)
    if value is None:
        changed = paid.filter(credit_used_pct__isnull=False).update(credit_used_pct=None)
    else:
        changed = paid.exclude(credit_used_pct=value).update(credit_used_pct=value)
    return changed + Pool.objects.exclude(pk__in=pool_ids).filter(credit_used_pct__isnull=False).update(
        credit_used_pct=None)


def whole_pct(used_pct: Decimal | None) -> Decimal | None:
    return None if used_pct is None else used_pct.to_integral_value(rounding=ROUND_FLOOR)


def vm_release(*, vm: VMInstance, job_ref: str) -> bool:
    """The job is over: BUSY → WARM, ready for the next one, idle clock restarted. A VM drained
    while it served the job is torn down instead (DRAINING → STOPPED)."""
    if _set_state(vm, expect=(VMState.BUSY,), to=VMState.WARM, where={"job_ref": job_ref}, job_ref="",
                  last_used_at=clock.now()):
        return True
    vm.refresh_from_db()
    if vm.state != VMState.DRAINING or not job_ref or vm.job_ref != job_ref:
        return False
    return _tear_down_draining(vm, reason=vm.state_reason or "Drained after its last job.", job_ref=job_ref)


# ---- ending VMs --------------------------------------------------------------------------------
def vm_fail(*, vm: VMInstance, reason: str, notify: bool = True, no_capacity: bool = False) -> bool:
    """A live VM is broken: FAILED, torn down, and (notify) its job's owner told via vm_lost.
    `no_capacity`: the pool could not get the VM (none available, or not ready in time), so the
    owner should not simply retry (submissions end REJECTED unless another VM can take them)."""
    job_ref = vm.job_ref
    if not _set_state(vm, expect=LIVE_VM_STATES, to=VMState.FAILED, reason=reason, stopped_at=clock.now(),
                      job_ref=""):
        return False
    try:
        get_backend(vm.pool.backend).stop(vm)
    except Exception:  # the row says FAILED either way; reconcile retries the tear-down
        log.exception("tearing down failed VM %s", vm.pk)
    if notify and job_ref:
        transaction.on_commit(lambda: vm_lost.send(sender=VMInstance, vm_id=vm.pk, job_ref=job_ref, reason=reason,
                                                   pool_id=vm.pool_id, no_capacity=no_capacity))
    return True


def vm_stop(*, vm: VMInstance, reason: str) -> bool:
    """Retire an idle VM: WARM → DRAINING (no longer acquirable) → torn down → STOPPED."""
    if not _set_state(vm, expect=(VMState.WARM,), to=VMState.DRAINING, reason=reason):
        return False
    return _tear_down_draining(vm, reason=reason)


def _tear_down_draining(vm: VMInstance, *, reason: str, job_ref: str = "") -> bool:
    try:
        get_backend(vm.pool.backend).stop(vm)
    except Exception as exc:
        log.exception("stopping VM %s", vm.pk)
        _set_state(vm, expect=(VMState.DRAINING,), to=VMState.FAILED, reason=f"Stop failed: {exc}",
                   where={"job_ref": job_ref}, stopped_at=clock.now(), job_ref="")
        return False
    return _set_state(vm, expect=(VMState.DRAINING,), to=VMState.STOPPED, reason=reason, where={"job_ref": job_ref},
                      stopped_at=clock.now(), job_ref="")


def vm_drain(*, vm: VMInstance, reason: str) -> str:
    """Take a VM out of service without cutting a job short: a warm VM stops now, a busy one
    stops once its job is released (BUSY → DRAINING, still serving). Returns what happened."""
    if vm.state == VMState.WARM and vm_stop(vm=vm, reason=reason):
        return "stopped"
    if _set_state(vm, expect=(VMState.BUSY,), to=VMState.DRAINING, reason=reason):
        return "draining"
    return "unchanged"


def vm_stop_now(*, vm: VMInstance, reason: str) -> bool:
    """Tear a live VM down now: a warm one is stopped, one in use fails (its job is re-queued)."""
    if vm.state == VMState.WARM and vm_stop(vm=vm, reason=reason):
        return True
    vm.refresh_from_db()
    return vm_fail(vm=vm, reason=f"{reason.rstrip('.')} while in use.")


def vm_reap_idle(*, now: datetime | None = None) -> int:
    """The pools' upkeep, every minute: stop the warm VMs their policy no longer keeps (fleets.policy),
    start the ones it keeps up ahead of demand, fail VMs stuck provisioning. Returns how many VMs
    were stopped or failed."""
    now = now or clock.now()
    count = 0
    live_by_pool: dict[Any, list[VMInstance]] = {}
    for vm in VMInstance.objects.filter(state__in=LIVE_VM_STATES).select_related("pool"):
        live_by_pool.setdefault(vm.pool_id, []).append(vm)
        if vm.state == VMState.PROVISIONING and vm.created_at + timedelta(seconds=vm.pool.provision_timeout_s) <= now:
            # Normally the provisioning worker gives up at the same moment; this catches a dead one.
            count += vm_fail(vm=vm, no_capacity=True, reason=(
                f"Provisioning took longer than {vm.pool.provision_timeout_s} s; the VM was stopped. "
                "No VM could be had in time: try again later."))
    for pool in Pool.objects.all():
        live = [vm for vm in live_by_pool.get(pool.pk, []) if vm.state in LIVE_VM_STATES]
        if not live and not _keeps_vms_ahead(pool):
            continue  # nothing to stop, nothing to keep up
        plan = reap_plan(pool=pool, live=live, now=now)
        for vm, reason in plan.stop:
            if vm.state == VMState.PROVISIONING:  # a pre-warm start the budget cannot pay on for
                count += vm_fail(vm=vm, reason=reason, notify=False)
            else:
                count += vm_stop(vm=vm, reason=reason)
        prewarm_charge(pool=pool, vms=plan.charge, now=now)
        for index in range(plan.start):
            started = vm_prestart(pool=pool)
            if started is not None and plan.forecast is not None and index >= plan.start - plan.forecast_starts:
                prewarm_start_record(pool=pool, vm=started, forecast=plan.forecast, wanted=plan.floor, now=now)
    return count


def _keeps_vms_ahead(pool: Pool) -> bool:
    return pool.enabled and (pool.policy == PoolPolicy.ALWAYS_ON or bool(pool.prewarm_hours) or forecast_on(pool))


def vm_reap_due_at(*, now: datetime | None = None) -> datetime | None:
    """The earliest instant at which vm_reap_idle would change anything if nothing else happened
    meanwhile (fleets.policy.reap_due_at per pool, and provisioning time limits); None: never. A read
    for a caller that wants to skip reaper runs that provably do nothing (bench/costsim.py)."""
    now = now or clock.now()
    pools = list(Pool.objects.all())
    timeout_s = {pool.pk: pool.provision_timeout_s for pool in pools}
    live_by_pool: dict[Any, list[VMInstance]] = {}
    due: list[datetime] = []
    for vm in VMInstance.objects.filter(state__in=LIVE_VM_STATES):
        live_by_pool.setdefault(vm.pool_id, []).append(vm)
        if vm.state == VMState.PROVISIONING:
            seconds = timeout_s[vm.pool_id] if vm.pool_id in timeout_s else vm.pool.provision_timeout_s
            due.append(vm.created_at + timedelta(seconds=seconds))
    for pool in pools:
        live = live_by_pool.get(pool.pk, [])
        if not live and not _keeps_vms_ahead(pool):
            continue
        at = reap_due_at(pool=pool, live=live, now=now)
        if at is not None:
            due.append(at)
    return max(min(due), now) if due else None


def vm_jobs_prune(*, now: datetime | None = None) -> int:
    """Forget the job log, and the arrivals and pre-warm records, older than the policies ever read (hourly)."""
    now = now or clock.now()
    deleted, _ = VMJob.objects.filter(started_at__lt=now - JOB_LOG_KEPT).delete()
    history, _ = PoolArrivals.objects.filter(slot__lt=now - HISTORY_KEPT).delete()
    decisions, _ = PrewarmDecision.objects.filter(at__lt=now - HISTORY_KEPT).delete()
    charges, _ = PrewarmCharge.objects.filter(slot__lt=now - HISTORY_KEPT).delete()
    return deleted + history + decisions + charges


def vms_reconcile() -> dict[str, int]:
    """Make rows and reality agree: kill agents no live row owns; fail rows whose agent is gone."""
    killed = failed = 0
    for pool in Pool.objects.all():
        try:
            backend = get_backend(pool.backend)
        except ProvisionError:
            continue
        try:
            k, f = _reconcile_pool(pool, backend)
        except Exception:  # one pool's backend outage (dstack unreachable) must not hide the others
            log.exception("reconciling pool %s", pool.name)
            continue
        killed, failed = killed + k, failed + f
    return {"orphans_killed": killed, "vms_failed": failed}


def _reconcile_pool(pool: Pool, backend: Backend) -> tuple[int, int]:
    killed = failed = 0
    live = list(VMInstance.objects.filter(pool=pool, state__in=LIVE_VM_STATES).select_related("pool"))
    for orphan in backend.find_orphans(pool, {str(vm.pk) for vm in live}):
        log.warning("reconcile: stopping orphan %s", orphan.description)
        backend.kill_orphan(pool, orphan)
        killed += 1
    for vm in live:
        if vm.state == VMState.PROVISIONING and not vm.pid and not vm.handle:
            continue  # still starting; the provisioning timeout covers a stuck start
        if not backend.is_alive(vm):
            vm.refresh_from_db()
            if vm.state in LIVE_VM_STATES and not backend.is_alive(vm):
                failed += vm_fail(vm=vm, reason=backend.gone_reason(vm))
        else:
            _keep_alive(vm, backend)
    return killed, failed


KEEPALIVE_TIMEOUT_S = 5.0


def _keep_alive(vm: VMInstance, backend: Backend) -> None:
    """A warm agent hears from its platform at every reconcile: one that hears nothing for its silence
    limit (fleets.policy.agent_silence_limit_s) stops itself, so a platform that is gone leaves no VM
    idling. A busy one hears from its runner; what the answer says does not matter here."""
    if vm.state != VMState.WARM or not vm.base_url:
        return
    client = None
    try:
        client = AgentClient(vm.base_url, vm.token, timeout=KEEPALIVE_TIMEOUT_S, headers=backend.agent_headers(vm))
        client.health()
    except AgentError as exc:
        log.info("reconcile: warm VM %s did not answer its keepalive (%s)", vm.pk, exc)
    finally:
        if client is not None:
            client.close()


# ---- pools -------------------------------------------------------------------------------------
def pool_ensure(*, name: str, backend: str, device: str, max_vms: int, idle_timeout_s: int,
                 hourly_rate: Decimal = Decimal("0"), languages: list[str] | None = None,
                 provision_timeout_s: int = LOCAL_PROVISION_TIMEOUT_S, config: dict[str, Any] | None = None,
                 title: str = "") -> tuple[Pool, bool]:
    return Pool.objects.update_or_create(name=name, defaults={
        "backend": backend, "device": device, "max_vms": max_vms, "idle_timeout_s": idle_timeout_s,
        "hourly_rate": hourly_rate, "languages": languages or [], "provision_timeout_s": provision_timeout_s,
        "config": config or {}, "title": title or name, "enabled": True,
    })


def vms_stop_local_here() -> int:
    """Tear down the live VMs of local pools whose agents run on this machine (their folder is here):
    the worker host stops, and nothing it started may outlive it (scripts/serve.sh). A VM in use
    fails, and its job is queued again for another host."""
    from fleets.backends.local import vm_dir

    qs = VMInstance.objects.filter(state__in=LIVE_VM_STATES, pool__backend=BackendKind.LOCAL).select_related("pool")
    return sum(vm_stop_now(vm=vm, reason="Stopped with the workers of its host.") for vm in qs if vm_dir(vm).exists())


def vms_stop_all(*, pool: Pool | None = None) -> int:
    """Tear down every live VM (of one pool): for `make run` shutting down, and staff."""
    qs = VMInstance.objects.filter(state__in=LIVE_VM_STATES).select_related("pool")
    if pool is not None:
        qs = qs.filter(pool=pool)
    return sum(vm_stop_now(vm=vm, reason="Stopped by an operator.") for vm in qs)

"""Every write to Fleet and VMInstance: acquire, provision, release, stop, fail, reap, reconcile.

State changes are conditional UPDATEs (`WHERE state = <expected>`), so two workers racing for the
same VM cannot both win, on SQLite as on PostgreSQL. Acquisition additionally locks candidate rows
with SKIP LOCKED where the database has it, so concurrent dispatchers do not queue behind each
other, and locks the fleet row before counting VMs, so max_vms holds under any number of workers.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.module_loading import import_string

from fleets.backends import ProvisionError, get_backend
from fleets.models import COUNTED_VM_STATES, LIVE_VM_STATES, Fleet, VMInstance, VMState
from fleets.signals import vm_lost, vm_state_changed

log = logging.getLogger(__name__)


def _set_state(vm: VMInstance, *, expect: tuple[str, ...], to: str, reason: str = "",
               where: dict[str, Any] | None = None, **fields: Any) -> bool:
    """Move `vm` to `to` if it is in one of `expect` (and matches `where`); True when this call
    made the change."""
    now = timezone.now()
    changed = VMInstance.objects.filter(pk=vm.pk, state__in=expect, **(where or {})).update(
        state=to, state_reason=reason, state_changed_at=now, **fields)
    if changed:
        old = vm.state
        vm.refresh_from_db()
        transaction.on_commit(lambda: vm_state_changed.send(
            sender=VMInstance, vm_id=vm.pk, fleet_id=vm.fleet_id, old=old, new=to))
    return bool(changed)


# ---- acquisition -------------------------------------------------------------------------------
def vm_acquire_refusal(*, fleet: Fleet) -> str | None:
    """Why no VM of `fleet` may be handed out now, from the callables named in
    settings.HIPJUDGE_VM_ACQUIRE_GUARDS (billing: the credit is used up), or None."""
    for path in getattr(settings, "HIPJUDGE_VM_ACQUIRE_GUARDS", ()):
        reason = import_string(path)(fleet=fleet)
        if reason:
            return reason
    return None


def vm_acquire(*, fleet: Fleet, job_ref: str) -> tuple[VMInstance, bool] | None:
    """A VM for `job_ref`: a WARM one (→ BUSY, cold=False), else a new PROVISIONING reservation
    when the fleet is below max_vms (cold=True), else None. Call inside the caller's transaction
    so that a failed claim of the work rolls the VM back too."""
    if not job_ref:
        raise ValueError("job_ref is required")
    refusal = vm_acquire_refusal(fleet=fleet)
    if refusal:
        log.info("pool %s hands out no VM: %s", fleet.name, refusal)
        return None
    now = timezone.now()
    with transaction.atomic():
        candidates = VMInstance.objects.filter(fleet=fleet, state=VMState.WARM)
        if connection.features.has_select_for_update_skip_locked:
            candidates = candidates.select_for_update(skip_locked=True)
        # Most recently used first: its compile cache and page cache are the warmest.
        for vm in candidates.order_by(F("last_used_at").desc(nulls_last=True))[:4]:
            if _set_state(vm, expect=(VMState.WARM,), to=VMState.BUSY, job_ref=job_ref,
                          last_used_at=now, jobs_started=F("jobs_started") + 1):
                return vm, False

        locked = Fleet.objects.select_for_update().filter(pk=fleet.pk).first()
        if locked is None or locked.max_vms <= VMInstance.objects.filter(
                fleet=fleet, state__in=COUNTED_VM_STATES).count():
            return None
        vm = VMInstance.objects.create(fleet=fleet, state=VMState.PROVISIONING, job_ref=job_ref,
                                       token=secrets.token_urlsafe(32), jobs_started=1, last_used_at=now)
        transaction.on_commit(lambda: vm_state_changed.send(
            sender=VMInstance, vm_id=vm.pk, fleet_id=fleet.pk, old=None, new=VMState.PROVISIONING))
        return vm, True


def vm_provision(*, vm: VMInstance) -> VMInstance:
    """Start a PROVISIONING VM through its backend and mark it BUSY for the job that reserved it
    (or WARM if none). On failure the VM ends FAILED and ProvisionError propagates."""
    if vm.state != VMState.PROVISIONING:
        return vm
    backend = get_backend(vm.fleet.backend)
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
                              "agent_info": done.agent_info, "ready_at": timezone.now()}
    with transaction.atomic():
        if not _set_state(vm, expect=(VMState.PROVISIONING,), to=VMState.BUSY if vm.job_ref else VMState.WARM,
                          **fields):
            # Failed or stopped meanwhile (reaper, staff): do not leave the new agent running.
            vm.refresh_from_db()
            backend.stop(vm)
            raise ProvisionError(f"The VM was {vm.state.lower()} while it started: {vm.state_reason}")
    return vm


def vm_release(*, vm: VMInstance, job_ref: str) -> bool:
    """The job is over: BUSY → WARM, ready for the next one, idle clock restarted. A VM drained
    while it served the job is torn down instead (DRAINING → STOPPED)."""
    if _set_state(vm, expect=(VMState.BUSY,), to=VMState.WARM, where={"job_ref": job_ref}, job_ref="",
                  last_used_at=timezone.now()):
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
    if not _set_state(vm, expect=LIVE_VM_STATES, to=VMState.FAILED, reason=reason, stopped_at=timezone.now(),
                      job_ref=""):
        return False
    log.warning("VM %s failed: %s", vm.pk, reason)
    try:
        get_backend(vm.fleet.backend).stop(vm)
    except Exception:  # the row says FAILED either way; reconcile retries the tear-down
        log.exception("tearing down failed VM %s", vm.pk)
    if notify and job_ref:
        transaction.on_commit(lambda: vm_lost.send(sender=VMInstance, vm_id=vm.pk, job_ref=job_ref, reason=reason,
                                                   fleet_id=vm.fleet_id, no_capacity=no_capacity))
    return True


def vm_stop(*, vm: VMInstance, reason: str) -> bool:
    """Retire an idle VM: WARM → DRAINING (no longer acquirable) → torn down → STOPPED."""
    if not _set_state(vm, expect=(VMState.WARM,), to=VMState.DRAINING, reason=reason):
        return False
    return _tear_down_draining(vm, reason=reason)


def _tear_down_draining(vm: VMInstance, *, reason: str, job_ref: str = "") -> bool:
    try:
        get_backend(vm.fleet.backend).stop(vm)
    except Exception as exc:
        log.exception("stopping VM %s", vm.pk)
        _set_state(vm, expect=(VMState.DRAINING,), to=VMState.FAILED, reason=f"Stop failed: {exc}",
                   where={"job_ref": job_ref}, stopped_at=timezone.now(), job_ref="")
        return False
    return _set_state(vm, expect=(VMState.DRAINING,), to=VMState.STOPPED, reason=reason, where={"job_ref": job_ref},
                      stopped_at=timezone.now(), job_ref="")


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
    """Stop WARM VMs idle past their fleet's timeout; fail VMs stuck provisioning. Returns count."""
    now = now or timezone.now()
    count = 0
    for vm in VMInstance.objects.filter(state=VMState.WARM).select_related("fleet"):
        idle_since = vm.last_used_at or vm.ready_at or vm.created_at
        if idle_since + timedelta(seconds=vm.fleet.idle_timeout_s) <= now:
            count += vm_stop(vm=vm, reason=f"Idle for more than {vm.fleet.idle_timeout_s} s.")
    for vm in VMInstance.objects.filter(state=VMState.PROVISIONING).select_related("fleet"):
        if vm.created_at + timedelta(seconds=vm.fleet.provision_timeout_s) <= now:
            # Normally the provisioning worker gives up at the same moment; this catches a dead one.
            count += vm_fail(vm=vm, no_capacity=True, reason=(
                f"Provisioning took longer than {vm.fleet.provision_timeout_s} s; the VM was stopped. "
                "No VM could be had in time: try again later."))
    return count


def vms_reconcile() -> dict[str, int]:
    """Make rows and reality agree: kill agents no live row owns; fail rows whose agent is gone."""
    killed = failed = 0
    for fleet in Fleet.objects.all():
        try:
            backend = get_backend(fleet.backend)
        except ProvisionError:
            continue
        try:
            k, f = _reconcile_fleet(fleet, backend)
        except Exception:  # one pool's backend outage (dstack unreachable) must not hide the others
            log.exception("reconciling pool %s", fleet.name)
            continue
        killed, failed = killed + k, failed + f
    return {"orphans_killed": killed, "vms_failed": failed}


def _reconcile_fleet(fleet: Fleet, backend: Any) -> tuple[int, int]:
    killed = failed = 0
    live = list(VMInstance.objects.filter(fleet=fleet, state__in=LIVE_VM_STATES).select_related("fleet"))
    for orphan in backend.find_orphans(fleet, {str(vm.pk) for vm in live}):
        log.warning("reconcile: stopping orphan %s", orphan.description)
        backend.kill_orphan(fleet, orphan)
        killed += 1
    for vm in live:
        if vm.state == VMState.PROVISIONING and not vm.pid and not vm.handle:
            continue  # still starting; the provisioning timeout covers a stuck start
        if not backend.is_alive(vm):
            vm.refresh_from_db()
            if vm.state in LIVE_VM_STATES and not backend.is_alive(vm):
                # A backend may know why (dstack: the run's outcome); processes just vanish.
                why = getattr(backend, "gone_reason", None)
                failed += vm_fail(vm=vm, reason=why(vm) if why else "The agent process is gone.")
    return killed, failed


# ---- pools -------------------------------------------------------------------------------------
def fleet_ensure(*, name: str, backend: str, device: str, max_vms: int, idle_timeout_s: int,
                 hourly_rate: Decimal = Decimal("0"), languages: list[str] | None = None,
                 provision_timeout_s: int = 120, config: dict[str, Any] | None = None,
                 title: str = "") -> tuple[Fleet, bool]:
    return Fleet.objects.update_or_create(name=name, defaults={
        "backend": backend, "device": device, "max_vms": max_vms, "idle_timeout_s": idle_timeout_s,
        "hourly_rate": hourly_rate, "languages": languages or [], "provision_timeout_s": provision_timeout_s,
        "config": config or {}, "title": title or name, "enabled": True,
    })


def vms_stop_all(*, fleet: Fleet | None = None) -> int:
    """Tear down every live VM (of one fleet): for `make run` shutting down, and staff."""
    qs = VMInstance.objects.filter(state__in=LIVE_VM_STATES).select_related("fleet")
    if fleet is not None:
        qs = qs.filter(fleet=fleet)
    return sum(vm_stop_now(vm=vm, reason="Stopped by an operator.") for vm in qs)

"""The dstack backend: a VM is a dstack service run (`hj-vm-<short id>`) on the pool's backend
fleet, its agent reached through the dstack server's service proxy.

provision() submits the run (or adopts the one a crashed worker submitted: the name comes from the
VM id), polls it by id with fresh data until it runs, then waits for the agent's health through the
proxy. Everything is bounded by the VM's provisioning limit counted from its creation, the same
clock the reaper uses, so a worker and the reaper agree on when a VM is stuck. A run that did not
start in time is stopped before the error is raised: nothing keeps billing after we gave up.

Backends never write the database: what provision() learns (run id, price, cold-start time) goes
back in Provisioned.agent_info, and billing reads `price_per_hour` from there.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core.units import format_duration
from fleets.agent_client import AgentClient, AgentError, AgentHTTPError
from fleets.backends.base import CapacityError, Orphan, Provisioned, ProvisionError
from fleets.dstack import (
    DstackClient,
    DstackError,
    FailureKind,
    FleetSettings,
    Phase,
    RunMissingError,
    VmRunSettings,
    classify_run,
    find_run,
    get_run,
    list_vm_runs,
    no_capacity_sentence,
    service_base_url,
    stop_run,
    submit_vm_run,
    vm_run_name,
)
from fleets.dstack_pools.config import dstack_client, dstack_settings, vm_run_settings
from fleets.models import Pool, VMInstance

log = logging.getLogger(__name__)
ALIVE_PHASES = (Phase.PENDING, Phase.PROVISIONING, Phase.RUNNING)


class DstackBackend:
    kind = "dstack"

    def __init__(self, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._sleep = sleep
        self._gone: dict[str, str] = {}  # vm id -> why is_alive said no (for reconcile's reason)

    def agent_headers(self, vm: VMInstance) -> dict[str, str]:
        # The proxy wants the dstack token; the agent its own X-Agent-Token (AgentClient adds it).
        return {"Authorization": f"Bearer {dstack_settings().token}"}

    # ---- provision -----------------------------------------------------------------------------
    def provision(self, vm: VMInstance) -> Provisioned:
        try:
            run_settings = vm_run_settings(vm)
            client = dstack_client()
        except DstackError as exc:
            raise ProvisionError(str(exc)) from exc
        limit = vm.pool.provision_timeout_s
        remaining = (vm.created_at + timedelta(seconds=limit) - timezone.now()).total_seconds()
        wait = _Wait(self, client, run_settings, limit=limit, deadline=time.monotonic() + max(remaining, 0.0))
        if remaining <= 0:  # resumed after its limit (a worker died): submitting now would only be stopped
            raise wait.timed_out()
        run_id = self._adopt_or_submit(client, vm, run_settings)
        run = wait.until_running(run_id)
        base_url = service_base_url(client.server_url, client.project, run_settings.run_name)
        health = wait.until_healthy(run_id, base_url, vm.token)
        job = run.latest_job_submission
        jpd = job.job_provisioning_data if job is not None else None
        dstack_info: dict[str, Any] = {"run_id": run_id, "run_name": run_settings.run_name}
        if jpd is not None:
            dstack_info.update(backend=getattr(jpd.backend, "value", jpd.backend), region=jpd.region,
                               instance_type=jpd.instance_type.name, price_per_hour=jpd.price)
        info: dict[str, Any] = {**health, "dstack": dstack_info,
                                "cold_start_s": round((timezone.now() - vm.created_at).total_seconds(), 1)}
        if jpd is not None and jpd.price is not None:
            info["price_per_hour"] = str(jpd.price)  # billing's rate for this VM (else the pool's)
        log.info("VM %s ready: dstack run %s after %.0f s", vm.pk, run_settings.run_name, info["cold_start_s"])
        return Provisioned(base_url=base_url, handle=run_settings.run_name, agent_info=info)

    def _adopt_or_submit(self, client: DstackClient, vm: VMInstance, run_settings: VmRunSettings) -> str:
        name = run_settings.run_name
        try:
            existing = find_run(client, name)
            if existing is not None and not existing.status.is_finished():
                # A worker died while this VM started: its run goes on, take it over. (The name holds
                # 32 bits of the VM id, so another VM's run by this name is not a practical worry.)
                log.info("VM %s: adopting dstack run %s (%s)", vm.pk, name, existing.status.value)
                return str(existing.id)
            submitted = submit_vm_run(client, run_settings)
        except DstackError as exc:
            raise ProvisionError(f"dstack could not start the VM: {exc}") from exc
        log.info("VM %s: submitted dstack run %s (%s offers now)", vm.pk, name, submitted.offers)
        return submitted.id

    # ---- the rest of the protocol ----------------------------------------------------------------
    def is_alive(self, vm: VMInstance) -> bool:
        """False only when dstack says the run is gone or ending; an unreachable dstack is no proof
        of death, so it never fails a VM."""
        try:
            client = dstack_client()
            run_id = (vm.agent_info or {}).get("dstack", {}).get("run_id")
            run = get_run(client, run_id) if run_id else find_run(client, vm.handle or vm_run_name(vm.pk))
        except RunMissingError:
            run = None
        except DstackError as exc:
            log.warning("cannot tell whether VM %s is alive: %s", vm.pk, exc)
            return True
        if run is None:
            self._gone[str(vm.pk)] = "Its dstack run no longer exists."
            return False
        outcome = classify_run(run, gpu=vm.pool.gpu_name or None)
        if outcome.phase in ALIVE_PHASES:
            return True
        self._gone[str(vm.pk)] = outcome.message
        return False

    def gone_reason(self, vm: VMInstance) -> str:
        return self._gone.get(str(vm.pk), "Its dstack run has ended.")

    def stop(self, vm: VMInstance) -> None:
        name = vm.handle or vm_run_name(vm.pk)
        try:
            stop_run(dstack_client(), name)
        except RunMissingError:
            pass
        log.info("VM %s: asked dstack to stop run %s", vm.pk, name)

    def find_orphans(self, pool: Pool, live_vm_ids: set[str]) -> list[Orphan]:
        live = {vm_run_name(vm_id) for vm_id in live_vm_ids}
        return [
            Orphan(handle=run.name, description=f"dstack run {run.name} ({run.status}) on fleet {run.fleet}")
            for run in list_vm_runs(dstack_client())
            if run.fleet == pool.name and run.name not in live and run.status != "terminating"
        ]

    def kill_orphan(self, pool: Pool, orphan: Orphan) -> None:
        stop_run(dstack_client(), orphan.handle)


class _Wait:
    """The provisioning clock of one VM: polls with fresh data, bounded by time and by count."""

    def __init__(self, backend: DstackBackend, client: DstackClient, run_settings: VmRunSettings, *,
                 limit: int, deadline: float) -> None:
        self.client, self.run_settings, self.limit, self.deadline = client, run_settings, limit, deadline
        self.dstack_fleet: FleetSettings = run_settings.fleet
        self.sleep = backend._sleep
        self.interval = float(settings.HIPJUDGE_DSTACK_POLL)
        self.max_polls = int(max(deadline - time.monotonic(), 0) / self.interval) + 5
        self.last = "dstack has not answered yet"

    @property
    def name(self) -> str:
        return self.run_settings.run_name

    def _pause(self) -> None:
        self.sleep(max(0.0, min(self.interval, self.deadline - time.monotonic())))

    def _poll(self, run_id: str) -> Any:
        """The run now, classified; a final one raises. Transient dstack errors return None (the
        client already retried them with backoff; the deadline still applies)."""
        try:
            run = get_run(self.client, run_id)
        except RunMissingError as exc:
            raise ProvisionError(f"The VM's dstack run {self.name} disappeared while it started.") from exc
        except DstackError as exc:
            self.last = str(exc)
            log.warning("polling dstack run %s: %s", self.name, exc)
            return None
        outcome = classify_run(run, gpu=self.dstack_fleet.gpu_name, backends=self.dstack_fleet.backends)
        self.last = outcome.message
        if outcome.final:
            kind = CapacityError if outcome.failure is FailureKind.NO_CAPACITY else ProvisionError
            raise kind(outcome.message)
        return run if outcome.phase is Phase.RUNNING else None

    def _give_up(self, message: str, kind: type[ProvisionError]) -> ProvisionError:
        try:
            stop_run(self.client, self.name)
        except DstackError as exc:  # the row ends FAILED and the reconcile job stops the run later
            log.warning("stopping dstack run %s after giving up: %s", self.name, exc)
        return kind(message)

    def until_running(self, run_id: str) -> Any:
        for _ in range(self.max_polls):
            run = self._poll(run_id)
            if run is not None:
                return run
            if time.monotonic() >= self.deadline:
                break
            self._pause()
        raise self.timed_out()

    def timed_out(self) -> ProvisionError:
        gpu = self.dstack_fleet.gpu_name
        where = no_capacity_sentence(gpu, self.dstack_fleet.backends)
        return self._give_up(
            f"No {gpu} VM became ready within {format_duration(self.limit)}, most likely {where} "
            f"(dstack last said: {self.last.rstrip('.')}). Its dstack run was stopped; try again later.",
            CapacityError)

    def until_healthy(self, run_id: str, base_url: str, token: str) -> dict[str, Any]:
        agent = AgentClient(base_url, token, timeout=float(settings.HIPJUDGE_AGENT_HTTP_TIMEOUT),
                            headers=self.client.auth_headers())
        last = ""
        try:
            for _ in range(self.max_polls):
                try:
                    return agent.health()
                except AgentHTTPError as exc:
                    if exc.status in (401, 403):  # a token problem does not heal by waiting
                        raise self._give_up(
                            f"The VM's agent refused us through the dstack proxy ({exc}): the dstack token "
                            "needs access to the project and the agent token must match.", ProvisionError) from exc
                    last = str(exc)
                except AgentError as exc:
                    last = str(exc)
                if time.monotonic() >= self.deadline:
                    break
                self._poll(run_id)  # the agent may have died: then the run says why
                self._pause()
        finally:
            agent.close()
        raise self._give_up(
            f"The VM runs but its agent did not answer through the dstack proxy within {format_duration(self.limit)} "
            f"({last}); see `dstack logs {self.name}`. The VM's run was stopped.", ProvisionError)

"""Run one dispatched submission: start its VM if cold, hand the job to the agent, copy the
agent's events into SubmissionEvent until the final RESULT, then give the VM back.

The runner holds a lease on the submission and renews it on every poll. If the worker dies, the
job goes on on the agent; the sweep notices the lapsed lease and starts a new runner, which
resumes from the last agent event it stored (`after=<agent_seq>`): nothing is lost or doubled.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
import uuid
from datetime import datetime
from typing import Any, NoReturn

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction

from agent.protocol import CANCELLED, FINISHED, RESULT, STATUS, JobRequest
from core import clock
from fleets.agent_client import AgentBusy, AgentClient, AgentError, AgentJobNotFound, AgentRejectedJob
from fleets.backends import CapacityError, ProvisionError, get_backend
from fleets.models import VMInstance, VMState
from fleets.services import vm_fail, vm_provision, vm_release
from submissions.capacity import submissions_refuse_for_capacity
from submissions.leases import LeaseHeartbeat, lease_claim, lease_release
from submissions.models import (
    AGENT_FINAL_STATUSES,
    AGENT_STATUSES,
    RUNNING_STATUSES,
    TERMINAL_STATUSES,
    Mode,
    Status,
    Submission,
)
from submissions.redaction import redact
from submissions.services import (
    EventIn,
    append_events_locked,
    finish_locked,
    lock_submission,
    log_status,
    submission_requeue_or_fail,
)
from submissions.signals import judgings_released

log = logging.getLogger(__name__)

BUSY_RETRY_SECONDS = 30.0


class Lost(Exception):
    """The runner lost its claim (cancelled, re-queued, finished elsewhere): stop quietly."""


def _parse_at(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def compile_cache_scope(*, user_id: int) -> str:
    """The agent's compile-cache scope of one user. Builds are shared within a scope only, so the
    `cached` flag and the compile time tell nobody what another user compiled. Opaque (an HMAC
    with the secret key): a user can neither name nor guess another's scope."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, f"compile-cache-scope/{user_id}".encode(), hashlib.sha256).hexdigest()[:32]


def job_limits() -> dict[str, float]:
    """What the job asks of the agent's limits (agent.protocol.ResourceLimits): only what is configured here;
    the agent's defaults hold for the rest."""
    budget = settings.HIPJUDGE_CASE_BUDGET_S
    return {"case_budget_s": budget} if budget > 0 else {}


def job_payload(submission: Submission) -> JobRequest:
    payload: JobRequest = {
        "id": submission.job_id,
        "problem": submission.problem_version.bundle,
        "language": submission.language,
        "source": submission.source,
        "mode": submission.mode,
        "limits": job_limits(),
        "seed": None,
        "cache_scope": compile_cache_scope(user_id=submission.user_id),
    }
    ranked_seed = ranked_seed_of(submission)
    if submission.mode == Mode.LEADERBOARD and ranked_seed is not None:  # without one, the agent refuses the job
        payload["ranked_seed"] = ranked_seed
    return payload


def ranked_seed_of(submission: Submission) -> int | None:
    judging = submission.judging
    return judging.ranked_seed if judging is not None else None


class Runner:
    def __init__(self, submission_id: str) -> None:
        self.submission_id = submission_id
        self.owner = uuid.uuid4().hex
        self.submission: Submission
        self.vm: VMInstance
        self.client: AgentClient | None = None

    # ---- entry -------------------------------------------------------------------------------
    def run(self) -> None:
        if not lease_claim(submission_id=self.submission_id, owner=self.owner, seconds=settings.HIPJUDGE_POLL_LEASE):
            self._release_if_ended()
            return  # finished, queued again, or another runner holds it
        try:
            self._load()
            self._run()
        except Lost:
            pass
        except (OperationalError, InterfaceError) as exc:
            # The database is away, not the job: it goes on on the agent. Queueing it again would
            # judge it twice and find its VM still busy with it; once the lease lapses the sweep
            # starts a runner that resumes from the last event stored.
            log.warning("runner for %s lost the database (%s); the sweep resumes it", self.submission_id,
                        type(exc).__name__)
        except Exception as exc:
            log.exception("runner for %s crashed", self.submission_id)
            loaded = getattr(self, "submission", None)
            submission_requeue_or_fail(submission_id=self.submission_id, attempt=loaded.attempt if loaded else None,
                                       reason=f"The orchestrator failed ({type(exc).__name__}).")
        finally:
            if self.client is not None:
                self.client.close()
            try:
                lease_release(submission_id=self.submission_id, owner=self.owner)
            except (OperationalError, InterfaceError):
                pass  # still away: the lease lapses by itself

    def _release_if_ended(self) -> None:
        """The result is already stored (a runner stored it, then died before it gave the VM back):
        give the VM back now, not at the sweep's next pass, which held it another minute or two."""
        ended = (Submission.objects.filter(pk=self.submission_id, status__in=TERMINAL_STATUSES,
                                           vm__job_ref=str(self.submission_id)).select_related("vm").first())
        if ended is not None and ended.vm is not None:
            vm_release(vm=ended.vm, job_ref=str(self.submission_id))

    def _load(self) -> None:
        self.submission = Submission.objects.select_related(
            "problem_version", "pool", "vm", "vm__pool", "judging").get(pk=self.submission_id)
        if self.submission.vm is None:
            raise RuntimeError("a dispatched submission without a VM")
        self.vm = self.submission.vm

    def _run(self) -> None:
        if self.vm.state == VMState.PROVISIONING:
            self._provision()
        # DRAINING with our job: staff drained the VM, which still serves this job, then stops.
        if self.vm.state not in (VMState.BUSY, VMState.DRAINING) or self.vm.job_ref != str(self.submission.pk):
            self._lose(f"Its VM is {self.vm.state.lower()}: {self.vm.state_reason or 'not serving it'}")
        backend = get_backend(self.vm.pool.backend)
        self.client = AgentClient(self.vm.base_url, self.vm.token, timeout=settings.HIPJUDGE_AGENT_HTTP_TIMEOUT,
                                  headers=backend.agent_headers(self.vm))
        if self._cancel_before_start():
            return
        self._post_job()
        self._poll()
        vm_release(vm=self.vm, job_ref=str(self.submission.pk))
        judgings_released.send(sender=Submission, submission_ids=[self.submission_id])

    # ---- steps -------------------------------------------------------------------------------
    def _provision(self) -> None:
        # Cold starts take minutes on cloud backends: the lease is renewed all along the start-up,
        # and lapses soon if this worker dies (the next runner adopts the VM being started).
        try:
            with LeaseHeartbeat(submission_id=self.submission_id, owner=self.owner,
                                seconds=settings.HIPJUDGE_POLL_LEASE):
                self.vm = vm_provision(vm=self.vm)
        except CapacityError as exc:
            # The pool has no VM to give: end it (and the pool's queue) REJECTED unless another VM can serve.
            submissions_refuse_for_capacity(pool_id=self.vm.pool_id, reason=str(exc), vm_id=self.vm.pk,
                                            submission_id=self.submission_id, attempt=self.submission.attempt)
            raise Lost() from exc
        except ProvisionError as exc:
            self._lose(f"Could not start a VM: {exc}")
        self._renew()
        self._record([EventIn("VM_READY", {"vm": str(self.vm.pk), "agent": self.vm.agent_info})],
                     status=Status.COMPILING)

    def _cancel_before_start(self) -> bool:
        submission = Submission.objects.only("cancel_requested", "started_at").get(pk=self.submission_id)
        if not submission.cancel_requested or submission.started_at is not None:
            return False
        with transaction.atomic():
            locked = self._locked()
            finish_locked(locked, status=Status.CANCELLED, reason="Cancelled before the judge started.")
        vm_release(vm=self.vm, job_ref=str(self.submission.pk))
        return True

    def _post_job(self) -> None:
        assert self.client is not None
        deadline = time.monotonic() + BUSY_RETRY_SECONDS
        while True:
            self._renew()
            try:
                self.client.submit(job_payload(self.submission))
                break
            except AgentBusy as exc:
                # Normally impossible (one job per VM); a previous job may still be winding down.
                if time.monotonic() > deadline:
                    self._fail_vm(f"The agent stayed busy with another job ({exc.message}).")
            except AgentRejectedJob as exc:
                said = redact(exc.message, ranked_seed_of(self.submission))
                self._finish(Status.ERROR, f"The agent refused the job: {said}")
                vm_release(vm=self.vm, job_ref=str(self.submission.pk))
                raise Lost() from exc
            except AgentError as exc:
                if time.monotonic() > deadline or not get_backend(self.vm.pool.backend).is_alive(self.vm):
                    self._fail_vm(f"The agent could not be reached ({exc}).")
            time.sleep(0.5)
        Submission.objects.filter(pk=self.submission_id, started_at__isnull=True).update(started_at=clock.now())

    def _poll(self) -> None:
        assert self.client is not None
        after = self.submission.events.filter(attempt=self.submission.attempt, agent_seq__isnull=False).order_by(
            "-agent_seq").values_list("agent_seq", flat=True).first() or 0
        last_ok = time.monotonic()
        deadline = time.monotonic() + settings.JOB_TASK_TIMEOUT - 60
        cancel_sent = False
        while time.monotonic() < deadline:
            wants_cancel = self._renew()
            if wants_cancel and not cancel_sent:
                try:
                    self.client.cancel(self.submission.job_id)
                    cancel_sent = True
                except AgentError:
                    log.warning("cancel of %s failed; retrying", self.submission.job_id)
            try:
                reply = self.client.events(self.submission.job_id, after=after,
                                           wait=settings.HIPJUDGE_AGENT_LONG_POLL)
            except AgentJobNotFound:
                self._fail_vm("The agent lost the job (it restarted?).")
            except AgentError as exc:
                if time.monotonic() - last_ok > settings.HIPJUDGE_AGENT_UNREACHABLE_AFTER:
                    self._fail_vm(f"The agent stopped answering ({exc}).")
                time.sleep(1.0)
                continue
            last_ok = time.monotonic()
            events = [e for e in reply.get("events", []) if isinstance(e, dict) and int(e.get("seq", 0)) > after]
            if events:
                after = max(int(e["seq"]) for e in events)
                if self._store(events):
                    return
            elif (reply.get("job") or {}).get("state") in (FINISHED, CANCELLED):
                # Ended without a RESULT we could read: should not happen, but never hang on it.
                self._finish(Status.ERROR, "The agent ended the job without a result.")
                return
        try:
            self.client.cancel(self.submission.job_id)
        except AgentError:
            pass
        self._finish(Status.TIME_LIMIT_EXCEEDED,
                     f"The job ran longer than the platform's limit of {settings.JOB_TASK_TIMEOUT - 60} s.")

    # ---- storing -----------------------------------------------------------------------------
    def _store(self, events: list[dict[str, Any]]) -> bool:
        """Copy agent events; returns True once the final RESULT is stored."""
        attempt = self.submission.attempt
        seed = ranked_seed_of(self.submission)
        items, status, result = [], None, None
        for raw in sorted(events, key=lambda e: int(e["seq"])):
            payload: dict[str, Any] = redact(raw["payload"], seed) if isinstance(raw.get("payload"), dict) else {}
            kind = str(raw.get("type", "UNKNOWN"))[:32]
            if kind == RESULT:
                result = (payload, EventIn(RESULT, {}, _parse_at(raw.get("at")), attempt, int(raw["seq"])))
                break
            items.append(EventIn(kind, payload, _parse_at(raw.get("at")), attempt, int(raw["seq"])))
            if kind == STATUS and payload.get("status") in AGENT_STATUSES:
                status = payload["status"]
        with transaction.atomic():
            locked = self._locked()
            stored = set(locked.events.filter(attempt=attempt, agent_seq__in=[e.agent_seq for e in items]
                                              + ([result[1].agent_seq] if result else [])).values_list(
                "agent_seq", flat=True))
            append_events_locked(locked, [e for e in items if e.agent_seq not in stored])
            if status and locked.status != status:
                locked.status = status
                locked.save(update_fields=["status"])
                log_status(locked, status)
            if result is not None and result[1].agent_seq not in stored:
                payload, event = result
                agent_status = str(payload.get("status", ""))
                final = agent_status if agent_status in AGENT_FINAL_STATUSES else Status.ERROR
                reason = str(payload.get("reason") or "")
                if final != agent_status:
                    reason = f"The agent reported an unknown status {agent_status!r}. {reason}".strip()
                score = payload.get("score_ms")
                finish_locked(locked, status=final, reason=reason,
                              score_ms=float(score) if isinstance(score, int | float) else None,
                              summary=payload.get("summary") if isinstance(payload.get("summary"), dict) else {},
                              event=event)
        return result is not None

    def _record(self, events: list[EventIn], status: str | None = None) -> None:
        with transaction.atomic():
            locked = self._locked()
            append_events_locked(locked, events)
            if status:
                locked.status = status
                locked.save(update_fields=["status"])
                log_status(locked, status)

    def _locked(self) -> Submission:
        """The row, locked, provided this runner still owns it; otherwise Lost."""
        locked = lock_submission(self.submission_id)
        if (locked is None or locked.status not in RUNNING_STATUSES or locked.lease_owner != self.owner
                or locked.attempt != self.submission.attempt):
            raise Lost()
        return locked

    def _finish(self, status: str, reason: str) -> None:
        with transaction.atomic():
            finish_locked(self._locked(), status=status, reason=reason)

    # ---- losing ------------------------------------------------------------------------------
    def _renew(self) -> bool:
        """Renew the lease; returns whether the owner asked to cancel. Raises Lost without a lease."""
        if not lease_claim(submission_id=self.submission_id, owner=self.owner, seconds=settings.HIPJUDGE_POLL_LEASE):
            raise Lost()
        return Submission.objects.filter(pk=self.submission_id, cancel_requested=True).exists()

    def _fail_vm(self, reason: str) -> NoReturn:
        vm_fail(vm=self.vm, reason=reason, notify=False)
        self._lose(reason)

    def _lose(self, reason: str) -> NoReturn:
        submission_requeue_or_fail(submission_id=self.submission_id, attempt=self.submission.attempt,
                                   vm_id=self.submission.vm_id, reason=reason)
        raise Lost()


def submission_run(*, submission_id: str) -> None:
    Runner(submission_id).run()


def submission_cancel_job(*, submission_id: str) -> None:
    """Ask the agent to stop the job now (the runner records the CANCELLED result)."""
    submission = Submission.objects.select_related("vm", "vm__pool").filter(
        pk=submission_id, status__in=RUNNING_STATUSES, cancel_requested=True).first()
    if submission is None or submission.vm is None or not submission.vm.base_url:
        return
    vm = submission.vm
    client = AgentClient(vm.base_url, vm.token, timeout=settings.HIPJUDGE_AGENT_HTTP_TIMEOUT,
                         headers=get_backend(vm.pool.backend).agent_headers(vm))
    try:
        client.cancel(submission.job_id)
    except AgentJobNotFound:
        pass  # not posted yet: the runner cancels before posting
    except AgentError as exc:
        log.warning("cancel of %s: %s (the runner will retry)", submission.job_id, exc)
    finally:
        client.close()

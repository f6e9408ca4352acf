"""Classify a dstack run (its own model objects, freshly fetched) into a VM outcome.

Rules (see docs/dstack.md, dstack facts and traps, for dstack's side):
- statuses are compared through `.value`, never `str(enum)` (`str(RunStatus.DONE)` is not "done");
- `terminating` is never final: cost accrues until the instance is released;
- success is `done` only; a run-level `terminated` means stopped or aborted by a user, whatever
  the exit status;
- `failed` is explained by the latest job submission's termination reason and exit status;
- the run status lags its job by 10-15 s: a job that already failed while the run still says
  `submitted` decides the outcome (the job wins);
- the function is pure: it sees only the object it is given, so the caller must pass a run it has
  just fetched by id (see runs.poll_run), never a cached one.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from dstack._internal.core.models.runs import JobSubmission, Run

from fleets.dstack.client import enum_value
from fleets.dstack.errors import no_capacity_sentence


class Phase(enum.StrEnum):
    PENDING = "pending"  # queued in dstack, no instance yet
    PROVISIONING = "provisioning"  # an instance is being created or the image pulled
    RUNNING = "running"
    STOPPING = "stopping"  # terminating: not final, the instance may still bill
    DONE = "done"
    FAILED = "failed"
    STOPPED = "stopped"  # stopped or aborted by a user (us, staff, the reconcile job)

    @property
    def final(self) -> bool:
        return self in (Phase.DONE, Phase.FAILED, Phase.STOPPED)


class FailureKind(enum.StrEnum):
    USER_PROGRAM = "user_program"  # the container's program (the agent) exited with an error
    TIMEOUT = "timeout"  # max_duration exceeded
    NO_CAPACITY = "no_capacity"  # no offer, fleet full, or retries for capacity ran out
    IMAGE = "image"  # the image could not be pulled or the container not created
    INFRASTRUCTURE = "infrastructure"  # anything else: instance lost, server error, ...


@dataclass(frozen=True)
class RunOutcome:
    phase: Phase
    failure: FailureKind | None
    message: str  # a sentence a user (or staff) can act on
    run_status: str
    job_status: str | None
    termination_reason: str | None  # the job's, else the run's
    exit_status: int | None
    run_finished: bool  # dstack's own run status is final (resources released or releasing done)

    @property
    def final(self) -> bool:
        return self.phase.final


_RUN_FINAL = {"done", "failed", "terminated"}
_JOB_FINAL = {"done", "failed", "terminated", "aborted"}
_USER_STOPS = {"terminated_by_user", "aborted_by_user", "stopped_by_user"}


def latest_submission(run: Run) -> JobSubmission | None:
    if run.latest_job_submission is not None:
        return run.latest_job_submission
    submissions = [job.job_submissions[-1] for job in run.jobs if job.job_submissions]
    return max(submissions, key=lambda s: s.submitted_at, default=None)


def requested_gpu(run: Run) -> str:
    gpu = run.run_spec.configuration.resources.gpu
    names = gpu.name if gpu is not None else None
    return "/".join(names) if names else "GPU"


def classify_run(run: Run, *, gpu: str | None = None, backends: Sequence[str] = ()) -> RunOutcome:
    """Our outcome for `run`. `gpu` and `backends` (the fleet's) only improve the messages."""
    run_status = enum_value(run.status)
    run_reason = run.termination_reason
    job = latest_submission(run)
    job_status = enum_value(job.status) if job is not None else None
    job_reason = job.termination_reason if job is not None else None
    ctx = _Context(gpu or requested_gpu(run), tuple(backends), job)

    def outcome(phase: Phase, message: str, failure: FailureKind | None = None) -> RunOutcome:
        return RunOutcome(
            phase=phase,
            failure=failure,
            message=message,
            run_status=run_status,
            job_status=job_status,
            termination_reason=job_reason or run_reason,
            exit_status=job.exit_status if job is not None else None,
            run_finished=run_status in _RUN_FINAL,
        )

    if run_status == "done":
        return outcome(Phase.DONE, "The VM's agent exited normally; the VM is gone.")
    if run_status == "terminated" or (run_status == "terminating" and run_reason in _USER_STOPS):
        final = run_status == "terminated"
        who = "aborted" if "aborted" in (run_reason or "") else "stopped"
        return outcome(
            Phase.STOPPED if final else Phase.STOPPING,
            f"The VM was {who} on request." if final else f"The VM is being {who}; waiting for dstack.",
        )
    if run_status == "failed":
        return outcome(Phase.FAILED, *_failure(ctx, job_reason, run_reason))
    # The run is not final: its job may already know better.
    if job_status == "done":
        return outcome(Phase.DONE, "The VM's agent exited normally; the VM is gone.")
    if job_status in _JOB_FINAL and job_reason in _USER_STOPS:
        return outcome(Phase.STOPPED, "The VM was stopped on request.")
    if job_status in _JOB_FINAL:
        # failed, or terminated by the server (max duration, scaled down, ...): never a success.
        return outcome(Phase.FAILED, *_failure(ctx, job_reason, run_reason))
    if run_status == "terminating" or job_status == "terminating":
        return outcome(Phase.STOPPING, "The VM is shutting down; waiting for dstack to release it.")
    if run_status == "running" and job_status in (None, "running"):
        return outcome(Phase.RUNNING, "The VM is running.")
    if run_status in ("provisioning", "running") or job_status in ("provisioning", "pulling"):
        doing = "pulling the image" if job_status == "pulling" else "starting an instance"
        return outcome(Phase.PROVISIONING, f"dstack is {doing} for the VM.")
    if run_status in ("pending", "submitted"):
        return outcome(Phase.PENDING, "The VM is queued in dstack, waiting for an instance.")
    # A status this code does not know: keep polling; the provisioning time limit still applies.
    return outcome(Phase.PENDING, f"dstack reports an unknown run status '{run_status}'; still waiting.")


@dataclass(frozen=True)
class _Context:
    gpu: str
    backends: tuple[str, ...]
    job: JobSubmission | None

    @property
    def detail(self) -> str:
        if self.job is None:
            return ""
        text = (self.job.termination_reason_message or self.job.error or "").strip()
        return text.splitlines()[0] if text else ""


def _failure(ctx: _Context, job_reason: str | None, run_reason: str | None) -> tuple[str, FailureKind]:
    job = ctx.job
    exit_status = job.exit_status if job is not None else None
    detail = f" ({ctx.detail})" if ctx.detail else ""
    if job_reason == "container_exited_with_error" or (job_reason is None and exit_status not in (None, 0)):
        return (
            f"The agent on the VM exited with status {exit_status}{detail}; "
            "see the run's logs (`dstack logs <run>`) and fix the image or the agent.",
            FailureKind.USER_PROGRAM,
        )
    if job_reason == "max_duration_exceeded":
        return (
            "The VM reached its maximum lifetime (max_duration) and was stopped; "
            "a new VM will be started for waiting submissions.",
            FailureKind.TIMEOUT,
        )
    if job_reason == "creating_container_error":
        return (
            f"The VM's container could not be created{detail}: check the image name, tag and "
            "digest and that the registry is reachable from the VM.",
            FailureKind.IMAGE,
        )
    if job_reason == "failed_to_start_due_to_no_capacity" or run_reason == "retry_limit_exceeded":
        return (
            f"{_sentence(no_capacity_sentence(ctx.gpu, ctx.backends))}: dstack found no offer "
            "for the VM. Try again later.",
            FailureKind.NO_CAPACITY,
        )
    if job_reason == "interrupted_by_no_capacity":
        return (
            "The cloud reclaimed the VM (spot interruption); submissions on it will be retried "
            "on another VM.",
            FailureKind.INFRASTRUCTURE,
        )
    reason = job_reason or run_reason or "unknown"
    return (
        f"The VM failed in dstack's infrastructure ({reason}){detail}; "
        "check the dstack server logs and the backend's status.",
        FailureKind.INFRASTRUCTURE,
    )


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]

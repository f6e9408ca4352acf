"""Contract tests: dstack's own Run / JobSubmission / status / termination-reason objects in, our
VM outcome out, for every combination of run status, job status, termination reasons and exit
status (the rules are listed in fleets/dstack/status.py)."""

from __future__ import annotations

import itertools

import pytest
from dstack._internal.core.models.runs import (
    JobStatus,
    JobTerminationReason,
    RunStatus,
    RunTerminationReason,
)

from fleets.dstack import FailureKind, Phase, classify_run, enum_value
from tests.fleets.dstack.factories import make_run

NO_CAPACITY = JobTerminationReason.FAILED_TO_START_DUE_TO_NO_CAPACITY.value


# -- the four prototype bugs -------------------------------------------------------------------


def test_bug1_str_of_an_enum_is_not_its_value_and_the_classifier_uses_value() -> None:
    assert str(RunStatus.DONE) != "done"  # the trap: 'RunStatus.DONE'
    assert enum_value(RunStatus.DONE) == "done"
    outcome = classify_run(make_run(RunStatus.DONE, JobStatus.DONE, exit_status=0))
    assert outcome.phase is Phase.DONE
    assert outcome.run_status == "done"
    assert outcome.job_status == "done"
    # The same run with plain strings (an older client, a JSON cache) classifies the same way.
    plain = make_run(RunStatus.DONE, JobStatus.DONE, exit_status=0).model_copy(update={"status": "done"})
    assert classify_run(plain).phase is Phase.DONE
    assert str(Phase.DONE) == "done"  # our own enums are StrEnums: no such trap downstream


@pytest.mark.parametrize("exit_status", [0, 1])
def test_bug2_run_terminated_is_a_stop_whatever_the_exit_status(exit_status: int) -> None:
    run = make_run(
        RunStatus.TERMINATED,
        JobStatus.TERMINATED,
        run_reason=RunTerminationReason.STOPPED_BY_USER.value,
        job_reason=JobTerminationReason.TERMINATED_BY_USER.value,
        exit_status=exit_status,
    )
    outcome = classify_run(run)
    # Not success (only `done` is) and not a user-program failure: somebody stopped it.
    assert outcome.phase is Phase.STOPPED
    assert outcome.failure is None
    assert outcome.final
    assert outcome.run_finished
    assert outcome.exit_status == exit_status


def test_bug2_success_needs_done_and_exit_1_fails_as_user_program() -> None:
    done = classify_run(
        make_run(RunStatus.TERMINATING, JobStatus.DONE, run_reason="all_jobs_done", exit_status=0)
    )
    assert done.phase is Phase.DONE
    assert not done.run_finished
    failed = classify_run(
        make_run(
            RunStatus.FAILED,
            JobStatus.FAILED,
            run_reason="job_failed",
            job_reason="container_exited_with_error",
            exit_status=1,
        )
    )
    assert failed.phase is Phase.FAILED
    assert failed.failure is FailureKind.USER_PROGRAM
    assert "status 1" in failed.message


@pytest.mark.parametrize(
    "job_status", [JobStatus.RUNNING, JobStatus.TERMINATING, JobStatus.PROVISIONING, JobStatus.SUBMITTED]
)
def test_bug3_terminating_without_exit_code_keeps_polling(job_status: JobStatus) -> None:
    outcome = classify_run(make_run(RunStatus.TERMINATING, job_status, exit_status=None))
    assert outcome.phase is Phase.STOPPING
    assert not outcome.final
    assert not outcome.run_finished


def test_bug4_classifier_is_pure_and_sees_only_the_object_it_is_given() -> None:
    # A stale object gives a stale answer: the classifier holds no state and fetches nothing, so
    # the caller must pass a run fetched by id just now (runs.poll_run; tested against servers).
    stale = make_run(RunStatus.SUBMITTED, JobStatus.SUBMITTED)
    fresh = stale.model_copy(
        update={
            "status": RunStatus.FAILED,
            "termination_reason": "job_failed",
            "latest_job_submission": stale.latest_job_submission.model_copy(  # type: ignore[union-attr]
                update={"status": JobStatus.FAILED, "termination_reason": NO_CAPACITY}
            ),
        }
    )
    assert classify_run(stale).phase is Phase.PENDING
    assert classify_run(fresh).phase is Phase.FAILED
    assert classify_run(stale).phase is Phase.PENDING  # nothing cached from the fresh call


# -- realistic sequences (as observed on a real dstack 0.22.5 server) --------------------------


CASES = [
    # run status, job status, run reason, job reason, exit, phase, failure
    ("pending", None, None, None, None, Phase.PENDING, None),
    ("submitted", "submitted", None, None, None, Phase.PENDING, None),
    ("submitted", "provisioning", None, None, None, Phase.PROVISIONING, None),
    ("provisioning", "provisioning", None, None, None, Phase.PROVISIONING, None),
    ("provisioning", "pulling", None, None, None, Phase.PROVISIONING, None),
    ("running", "pulling", None, None, None, Phase.PROVISIONING, None),
    ("running", "running", None, None, None, Phase.RUNNING, None),
    # no capacity: the job is terminating, then failed, while the run still says submitted
    ("submitted", "terminating", None, NO_CAPACITY, None, Phase.STOPPING, None),
    ("submitted", "failed", None, NO_CAPACITY, None, Phase.FAILED, FailureKind.NO_CAPACITY),
    ("terminating", "failed", "job_failed", NO_CAPACITY, None, Phase.FAILED, FailureKind.NO_CAPACITY),
    ("failed", "failed", "job_failed", NO_CAPACITY, None, Phase.FAILED, FailureKind.NO_CAPACITY),
    ("failed", "failed", "retry_limit_exceeded", NO_CAPACITY, None, Phase.FAILED, FailureKind.NO_CAPACITY),
    ("failed", None, "retry_limit_exceeded", None, None, Phase.FAILED, FailureKind.NO_CAPACITY),
    ("running", "failed", None, "container_exited_with_error", 3, Phase.FAILED, FailureKind.USER_PROGRAM),
    ("failed", "failed", "job_failed", None, 2, Phase.FAILED, FailureKind.USER_PROGRAM),
    ("failed", "terminated", "job_failed", "max_duration_exceeded", None, Phase.FAILED, FailureKind.TIMEOUT),
    ("running", "terminated", None, "max_duration_exceeded", None, Phase.FAILED, FailureKind.TIMEOUT),
    ("failed", "failed", "job_failed", "creating_container_error", None, Phase.FAILED, FailureKind.IMAGE),
    (
        "failed",
        "failed",
        "job_failed",
        "instance_unreachable",
        None,
        Phase.FAILED,
        FailureKind.INFRASTRUCTURE,
    ),
    (
        "failed",
        "failed",
        "job_failed",
        "interrupted_by_no_capacity",
        None,
        Phase.FAILED,
        FailureKind.INFRASTRUCTURE,
    ),
    ("failed", None, "server_error", None, None, Phase.FAILED, FailureKind.INFRASTRUCTURE),
    ("running", "terminated", None, "scaled_down", None, Phase.FAILED, FailureKind.INFRASTRUCTURE),
    ("terminating", "running", "stopped_by_user", None, None, Phase.STOPPING, None),
    ("terminating", "terminating", "aborted_by_user", None, None, Phase.STOPPING, None),
    ("running", "terminated", None, "terminated_by_user", None, Phase.STOPPED, None),
    ("terminated", "terminated", "stopped_by_user", "terminated_by_user", None, Phase.STOPPED, None),
    ("terminated", "aborted", "aborted_by_user", "aborted_by_user", None, Phase.STOPPED, None),
    ("done", "done", "all_jobs_done", "done_by_runner", 0, Phase.DONE, None),
]


@pytest.mark.parametrize(
    ("run_status", "job_status", "run_reason", "job_reason", "exit_status", "phase", "failure"), CASES
)
def test_it_classifies_each_observed_state(
    run_status: str,
    job_status: str | None,
    run_reason: str | None,
    job_reason: str | None,
    exit_status: int | None,
    phase: Phase,
    failure: FailureKind | None,
) -> None:
    for latest in (True, False):  # with and without `latest_job_submission` filled in
        run = make_run(
            run_status,
            job_status,
            run_reason=run_reason,
            job_reason=job_reason,
            exit_status=exit_status,
            latest=latest,
        )
        outcome = classify_run(run, backends=["amddevcloud"])
        assert (outcome.phase, outcome.failure) == (phase, failure)
        assert outcome.message.endswith(".")
        assert outcome.run_finished == (run_status in ("done", "failed", "terminated"))


def test_no_capacity_says_which_gpu_and_backend() -> None:
    run = make_run("failed", "failed", run_reason="job_failed", job_reason=NO_CAPACITY)
    message = classify_run(run, backends=["amddevcloud"]).message
    assert message.startswith("No MI300X capacity on amddevcloud right now")
    assert "hotaisle" in classify_run(run, gpu="MI300X", backends=["amddevcloud", "hotaisle"]).message
    assert "the fleet's backends" in classify_run(run).message  # gpu taken from the run spec


def test_failure_messages_carry_dstacks_detail() -> None:
    run = make_run(
        "failed",
        "failed",
        run_reason="job_failed",
        job_reason="creating_container_error",
        job_message="manifest unknown: rocm/dev-ubuntu-22.04:6.2.4\nmore lines",
    )
    outcome = classify_run(run)
    assert "manifest unknown" in outcome.message
    assert "more lines" not in outcome.message


# -- every combination -------------------------------------------------------------------------


def test_every_combination_keeps_the_invariants() -> None:
    base = make_run(RunStatus.SUBMITTED, JobStatus.SUBMITTED)
    sub = base.latest_job_submission
    assert sub is not None
    job_reasons = [None, *(r.value for r in JobTerminationReason)]
    run_reasons = [None, *(r.value for r in RunTerminationReason)]
    checked = 0
    for run_status, job_status, job_reason, run_reason, exit_status in itertools.product(
        RunStatus, [None, *JobStatus], job_reasons, run_reasons, [None, 0, 1]
    ):
        if job_status is None:
            if job_reason is not None or exit_status is not None:
                continue
            run = base.model_copy(
                update={
                    "status": run_status,
                    "termination_reason": run_reason,
                    "jobs": [],
                    "latest_job_submission": None,
                }
            )
        else:
            job = sub.model_copy(
                update={"status": job_status, "termination_reason": job_reason, "exit_status": exit_status}
            )
            run = base.model_copy(
                update={"status": run_status, "termination_reason": run_reason, "latest_job_submission": job}
            )
        o = classify_run(run)
        checked += 1
        context = (run_status.value, job_status and job_status.value, run_reason, job_reason, exit_status)
        assert o.message, context
        assert "Status." not in o.message, context
        assert "Reason." not in o.message, context
        assert (o.failure is not None) == (o.phase is Phase.FAILED), context
        assert o.run_finished == run_status.is_finished(), context
        if run_status.is_finished():
            assert o.final, context
        job_final = job_status is not None and job_status.is_finished()
        if not run_status.is_finished() and not job_final:
            assert not o.final, context  # includes every `terminating`
        if o.phase is Phase.DONE:
            assert RunStatus.DONE in (run_status,) or job_status is JobStatus.DONE, context
        if run_status is RunStatus.TERMINATED:
            assert o.phase is Phase.STOPPED, context
        if o.phase is Phase.FAILED and job_reason in _KIND_BY_JOB_REASON:
            assert o.failure is _KIND_BY_JOB_REASON[job_reason], context
    assert checked > 30_000


_KIND_BY_JOB_REASON = {
    "container_exited_with_error": FailureKind.USER_PROGRAM,
    "max_duration_exceeded": FailureKind.TIMEOUT,
    "failed_to_start_due_to_no_capacity": FailureKind.NO_CAPACITY,
    "creating_container_error": FailureKind.IMAGE,
}

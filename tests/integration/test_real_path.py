"""The real path: API → qcluster worker → local agent process (real HTTP, real sandbox) → events."""

from __future__ import annotations

import shutil
import signal
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from core.queue import enqueue
from fleets.models import VMInstance, VMState
from leaderboard.models import Review
from submissions.models import TERMINAL_STATUSES, VERDICT_STATUSES, Status, Submission
from submissions.sweep import submissions_sweep
from tests.conftest import read_source
from tests.integration.conftest import Stack, process_running, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("problems_loaded", "judging_pool")]

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
COMPILE_ERROR_SOURCE = 'extern "C" void solution(const float* a, const float* b, float* c, size_t n) { oops }\n'


def submit(client: Any, source: str, mode: str = "benchmark") -> str:
    response = client.post("/api/v1/submissions", {"problem": "vector-add", "language": "cpp", "source": source,
                                                   "mode": mode}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def wait_terminal(submission_id: str, stack: Stack, timeout: float = 120.0) -> Submission:
    def done() -> Submission | None:
        submission = Submission.objects.get(pk=submission_id)
        return submission if submission.status in TERMINAL_STATUSES else None

    try:
        return wait_for(done, timeout, f"submission {submission_id} to finish", interval=0.2)
    except AssertionError:
        logs = "\n".join(f"--- {p.name}\n{p.output()[-3000:]}" for p in stack.procs)
        status = Submission.objects.get(pk=submission_id).status
        raise AssertionError(f"{submission_id} stuck in {status}\n{logs}") from None


def test_cpp_vector_add_is_accepted_then_reused_warm_then_reaped(stack: Stack, owner: Any, api_as: Any,
                                                                  judging_pool: Any) -> None:
    stack.start_worker()
    client = api_as(owner)
    first = wait_terminal(submit(client, read_source("cpp.cpp")), stack)
    assert first.status == Status.ACCEPTED, first.status_reason
    assert first.vm_start == "COLD_START"
    assert first.score_ms
    assert first.score_ms > 0
    detail = client.get(f"/api/v1/submissions/{first.pk}").json()
    tests, benchmarks = detail["results"]["tests"], detail["results"]["benchmarks"]
    assert [t["case"] for t in tests] == ["n=1", "n=1000", "n=65537", "n=1048576"]
    assert all(t["passed"] for t in tests)
    assert [b["case"] for b in benchmarks] == ["n=2^20", "n=2^22"]
    assert all(b["runs"] >= 3 for b in benchmarks)
    assert detail["results"]["compile"]["ok"] is True
    assert first.dispatched_at
    assert first.started_at
    assert first.finished_at
    vm = VMInstance.objects.get()
    assert vm.state == VMState.WARM
    assert process_running(vm.pid)

    # Check mode: the verdict of a benchmark depends on the machine's load (the agent refuses runs whose
    # timings disagree), and this one is here for the warm reuse.
    second = wait_terminal(submit(client, read_source("cpp.cpp"), mode="check"), stack)
    assert second.status == Status.CHECKED
    assert second.vm_start == "WARM_REUSE"
    assert second.vm_id == vm.pk
    assert VMInstance.objects.count() == 1

    # Past the idle timeout the reaper (run by the worker) stops the VM and its agent process. The worker
    # is another process, out of reach of a test clock: the VM's idle time is written instead of waited.
    judging_pool.idle_timeout_s = 1
    judging_pool.save()
    VMInstance.objects.filter(pk=vm.pk).update(last_used_at=timezone.now() - timedelta(seconds=2))
    enqueue("fleets.tasks.reap_idle")
    wait_for(lambda: VMInstance.objects.get().state == VMState.STOPPED, 30, "the reaper to stop the VM")
    wait_for(lambda: not process_running(vm.pid), 10, "the agent process to exit")


@pytest.mark.parametrize(("source", "status", "words"), [
    (read_source("wrong.cpp"), Status.WRONG_ANSWER, "c[0]"),
    (COMPILE_ERROR_SOURCE, Status.COMPILE_ERROR, "error"),
], ids=["wrong-answer", "compile-error"])
def test_a_failing_submission_ends_with_the_exact_reason(stack: Stack, owner: Any, api_as: Any, source: str,
                                                         status: str, words: str) -> None:
    stack.start_worker()
    submission = wait_terminal(submit(api_as(owner), source, mode="check"), stack)
    assert submission.status == status
    assert words in submission.status_reason
    result = submission.events.get(type="RESULT")
    assert result.payload["status"] == status
    assert result.seq == submission.last_seq
    if status == Status.COMPILE_ERROR:
        assert words in submission.events.get(type="COMPILE_RESULT").payload["output"]


@pytest.mark.db_agnostic
@pytest.mark.skipif(shutil.which("hipcc") is None,
                    reason="Debian's hipcc is not installed (make setup installs it as root)")
def test_the_local_pool_compile_checks_a_hip_kernel_it_cannot_run(stack: Stack, owner: Any, api_as: Any,
                                                                   judging_pool: Any) -> None:
    judging_pool.config = {**judging_pool.config, "compile_only_languages": ["hip"], "emulated_languages": []}
    judging_pool.save()
    stack.start_worker()
    client = api_as(owner)
    source = (PROBLEMS / "vector-add" / "solutions" / "hip.hip").read_text()
    refused = client.post("/api/v1/submissions", {"problem": "vector-add", "language": "hip", "source": source,
                                                  "mode": "benchmark"}, format="json")
    assert refused.status_code == 400
    assert "only compile-check hip" in refused.json()["message"]
    response = client.post("/api/v1/submissions", {"problem": "vector-add", "language": "hip", "source": source,
                                                   "mode": "compile"}, format="json")
    assert response.status_code == 201, response.json()
    submission = wait_terminal(response.json()["id"], stack, timeout=180)
    assert submission.status == Status.COMPILED, submission.status_reason
    assert "gfx9" in submission.status_reason  # compiled for the newest AMD target Debian's hipcc knows


@pytest.mark.db_agnostic
def test_the_local_pool_checks_hip_and_cuda_on_the_emulated_device(stack: Stack, owner: Any, api_as: Any,
                                                                   emulating_pool: Any) -> None:
    stack.start_worker()
    client = api_as(owner)
    ids = {}
    for language, name in (("hip", "hip.hip"), ("cuda", "cuda.cu")):
        response = client.post("/api/v1/submissions", {"problem": "vector-add", "language": language, "mode": "check",
                                                       "source": read_source(name)}, format="json")
        assert response.status_code == 201, response.json()
        assert response.json()["emulated"] is True, response.json()
        ids[language] = response.json()["id"]
    for language, submission_id in ids.items():
        submission = wait_terminal(submission_id, stack, timeout=240)
        assert submission.status == Status.CHECKED, (language, submission.status_reason)
        assert "on the emulated device (CPU)" in submission.status_reason
        assert submission.summary["device"] == "emulated"
        assert submission.score_ms is None


def test_a_worker_killed_mid_job_is_resumed_and_the_submission_still_finishes(stack: Stack, owner: Any,
                                                                             api_as: Any) -> None:
    worker = stack.start_worker()
    submission_id = submit(api_as(owner), read_source("cpp.cpp"))
    wait_for(lambda: Submission.objects.get(pk=submission_id).status in (Status.CHECKING, Status.BENCHMARKING),
             60, "the job to be checking on the agent")
    stack.kill(worker, signal.SIGKILL)  # the whole qcluster: no graceful anything
    stored_before = Submission.objects.get(pk=submission_id).last_seq

    stack.start_worker()
    submission = Submission.objects.get(pk=submission_id)
    wait_for(lambda: Submission.objects.get(pk=submission_id).lease_expires_at < timezone.now(), 10,
             "the dead runner's lease to lapse")
    assert submissions_sweep()["resumed"] == 1  # what the periodic sweep does every minute
    submission = wait_terminal(submission_id, stack)
    # Resumed, not re-run, and ended with the agent's own verdict (which, for a benchmark, can depend on
    # the machine's load: the agent refuses runs whose timings disagree; test_cpp_vector_add_... and
    # tests/agent hold the verdict itself).
    assert submission.status in VERDICT_STATUSES, submission.status_reason
    assert submission.attempt == 1, submission.status_reason
    agent_seqs = list(submission.events.filter(agent_seq__isnull=False).values_list("agent_seq", flat=True))
    assert agent_seqs == list(range(1, len(agent_seqs) + 1))  # nothing lost, nothing twice
    assert submission.events.get(type="RESULT").agent_seq == agent_seqs[-1]  # the agent's RESULT, relayed
    assert submission.last_seq > stored_before


def test_cancel_stops_the_running_job_and_the_vm_stays_usable(stack: Stack, owner: Any, api_as: Any) -> None:
    stack.start_worker()
    client = api_as(owner)
    submission_id = submit(client, read_source("cpp.cpp"))
    wait_for(lambda: Submission.objects.get(pk=submission_id).status == Status.BENCHMARKING, 60,
             "the benchmark to start")
    assert client.post(f"/api/v1/submissions/{submission_id}/cancel").status_code == 202
    submission = wait_terminal(submission_id, stack, timeout=30)
    assert submission.status == Status.CANCELLED
    assert submission.status_reason
    wait_for(lambda: VMInstance.objects.get().state == VMState.WARM, 10, "the VM to be released")
    again = wait_terminal(submit(client, read_source("cpp.cpp"), mode="check"), stack)
    assert again.status == Status.CHECKED
    assert again.vm_start == "WARM_REUSE"


def test_a_leaderboard_submission_is_ranked_by_the_real_agents_ranked_pass(stack: Stack, owner: Any,
                                                                          api_as: Any) -> None:
    """The agent's side of the ranked pass, read by the platform's side: the real agent runs the
    ranked cases on the submission's secret seed and the leaderboard shows the result."""
    stack.start_worker()
    client = api_as(owner)
    submission = wait_terminal(submit(client, read_source("cpp.cpp"), mode="leaderboard"), stack, timeout=240)
    assert submission.status == Status.ACCEPTED, submission.status_reason
    # The pool's first result is a record: the worker judges it a second time on a new seed, and it
    # ranks when both agree. On a loaded machine the two moments may not: then staff see both.
    wait_for(lambda: Submission.objects.get(pk=submission.pk).entry.ranked_score_ms is not None, 240,
             "the record's second judging")
    submission = wait_terminal(str(submission.pk), stack, timeout=60)
    assert submission.judgings.count() == 2, submission.status_reason
    assert submission.status == Status.ACCEPTED, submission.status_reason
    assert submission.entry.ranked_score_ms
    assert submission.entry.ranked_score_ms > 0
    assert submission.entry.ranked_speedup
    if submission.entry.review == Review.HELD:
        assert "its record was not confirmed" in submission.entry.review_reason, submission.entry.review_reason
        return
    detail = client.get(f"/api/v1/submissions/{submission.pk}").json()
    assert [c["case"] for c in detail["results"]["ranked"]] == ["n=3000017"]
    rows = api_as(None).get("/api/v1/problems/vector-add/leaderboard").json()["rows"]
    assert [row["score_ms"] for row in rows] == [pytest.approx(submission.entry.ranked_score_ms)]
    low, high = rows[0]["ci95_ms"]
    assert low <= rows[0]["score_ms"] <= high
    assert rows[0]["speedup"] > 0

    tuned = (PROBLEMS.parent / "tests" / "agent" / "corpus" / "tuned_to_public_shapes.cpp").read_text()
    failed = wait_terminal(submit(client, tuned, mode="leaderboard"), stack, timeout=240)
    assert failed.status == Status.WRONG_ANSWER
    assert "ranked pass" in failed.status_reason
    assert failed.entry.ranked_score_ms is None
    assert len(api_as(None).get("/api/v1/problems/vector-add/leaderboard").json()["rows"]) == 1

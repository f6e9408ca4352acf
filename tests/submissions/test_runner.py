"""The runner against a scripted stand-in agent: copying events, resuming, refusals, lost VMs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fleets.models import VMInstance, VMState
from submissions.dispatch import lease_claim, submission_dispatch_next
from submissions.models import Status, Submission
from submissions.runner import submission_run
from submissions.services import EventIn, append_events_locked, submission_create
from tests import fake_agent
from tests.conftest import read_source

pytestmark = pytest.mark.usefixtures("problems_loaded")


@pytest.fixture
def agent() -> Iterator[fake_agent.FakeAgent]:
    with fake_agent.running(fake_agent.FakeAgent()) as running:
        yield running


def dispatched(owner: Any, pool: Any, url: str) -> Submission:
    """A submission dispatched to a warm VM whose agent answers at `url`."""
    VMInstance.objects.create(fleet=pool, state=VMState.WARM, base_url=url, token=fake_agent.TOKEN)
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    assert submission_dispatch_next(fleet=pool) is not None
    submission.refresh_from_db()
    return submission


def agent_events(submission: Submission) -> list[tuple[str, int | None]]:
    return list(submission.events.filter(agent_seq__isnull=False).values_list("type", "agent_seq"))


def test_it_copies_the_agents_events_and_ends_with_its_result(owner: Any, local_pool: Any,
                                                              agent: fake_agent.FakeAgent) -> None:
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED and submission.status_reason == "all 1 tests passed"
    assert submission.score_ms == 1.5 and submission.summary == {"tests": 1}
    assert submission.started_at and submission.finished_at and submission.lease_owner == ""
    assert [t for t, _ in agent_events(submission)] == [t for t, _ in agent.script]
    seqs = list(submission.events.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1)) and submission.last_seq == seqs[-1]
    job = agent.jobs[f"{submission.pk}-1"]
    assert job["problem"] == submission.problem_version.bundle and job["mode"] == "benchmark"
    vm = VMInstance.objects.get()
    assert vm.state == VMState.WARM and vm.job_ref == ""
    detail_results = submission.events.filter(type="TEST_RESULT").count()
    assert detail_results == 1


def test_it_resumes_after_the_last_agent_event_it_stored(owner: Any, local_pool: Any,
                                                         agent: fake_agent.FakeAgent) -> None:
    submission = dispatched(owner, local_pool, agent.url)
    # A previous runner stored the first three agent events, then its worker died.
    locked = Submission.objects.get(pk=submission.pk)
    append_events_locked(locked, [EventIn(t, p, attempt=1, agent_seq=i)
                                  for i, (t, p) in enumerate(agent.script[:3], start=1)])
    submission_run(submission_id=str(submission.pk))
    polls = [path for method, path in agent.calls if method == "GET" and "/events" in path]
    assert polls and "after=3" in polls[0]
    assert [s for _, s in agent_events(submission)] == list(range(1, len(agent.script) + 1))
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED


def test_a_job_the_agent_refuses_ends_in_error_with_its_message(owner: Any, local_pool: Any,
                                                                agent: fake_agent.FakeAgent) -> None:
    agent.post_status = 400
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.ERROR
    assert submission.status_reason == "The agent refused the job: language: not supported here"
    assert VMInstance.objects.get().state == VMState.WARM


def test_an_unknown_final_status_becomes_error(owner: Any, local_pool: Any, agent: fake_agent.FakeAgent) -> None:
    agent.script = [("RESULT", {"status": "MAYBE", "reason": "hmm"})]
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.ERROR and "unknown status 'MAYBE'" in submission.status_reason


def test_a_lost_job_is_requeued_once_then_ends_in_error(owner: Any, local_pool: Any,
                                                        agent: fake_agent.FakeAgent) -> None:
    agent.events_status = 404
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.IN_QUEUE and submission.vm is None
    assert submission.events.filter(type="REQUEUED").count() == 1
    assert VMInstance.objects.get().state == VMState.FAILED
    # Second attempt on a fresh VM, lost again: now it ends, with the reason.
    VMInstance.objects.create(fleet=local_pool, state=VMState.WARM, base_url=agent.url, token=fake_agent.TOKEN)
    submission_dispatch_next(fleet=local_pool)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.ERROR and submission.attempt == 2
    assert submission.status_reason == "The agent lost the job (it restarted?). Gave up after 2 attempts."


def test_an_unreachable_dead_agent_fails_its_vm_at_once(owner: Any, local_pool: Any) -> None:
    submission = dispatched(owner, local_pool, "http://127.0.0.1:9")  # nothing listens on port 9
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.IN_QUEUE
    assert "could not be reached" in submission.events.get(type="REQUEUED").payload["reason"]


def test_a_leased_submission_is_left_to_its_runner(owner: Any, local_pool: Any,
                                                   agent: fake_agent.FakeAgent) -> None:
    submission = dispatched(owner, local_pool, agent.url)
    assert lease_claim(submission_id=submission.pk, owner="someone-else", seconds=30)
    submission_run(submission_id=str(submission.pk))
    assert agent.calls == []
    submission.refresh_from_db()
    assert submission.status == Status.COMPILING and submission.lease_owner == "someone-else"


def test_a_cancel_before_the_job_starts_never_reaches_the_agent(owner: Any, local_pool: Any,
                                                               agent: fake_agent.FakeAgent) -> None:
    submission = dispatched(owner, local_pool, agent.url)
    Submission.objects.filter(pk=submission.pk).update(cancel_requested=True)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.CANCELLED and agent.jobs == {}
    assert VMInstance.objects.get().state == VMState.WARM

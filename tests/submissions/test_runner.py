"""The runner against a scripted stand-in agent: copying events, resuming, refusals, lost VMs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from fleets.models import VMInstance, VMState
from submissions.dispatch import submission_dispatch_next
from submissions.leases import LeaseHeartbeat, lease_claim
from submissions.models import Status, Submission
from submissions.runner import submission_run
from submissions.services import EventIn, append_events_locked, submission_create
from tests.conftest import finish, read_source
from tests.support import fake_agent
from tests.support.clock import stepped_clock

pytestmark = pytest.mark.usefixtures("problems_loaded")


@pytest.fixture
def agent() -> Iterator[fake_agent.FakeAgent]:
    with fake_agent.running(fake_agent.FakeAgent()) as running:
        yield running


def dispatched(owner: Any, pool: Any, url: str) -> Submission:
    """A submission dispatched to a warm VM whose agent answers at `url`."""
    VMInstance.objects.create(pool=pool, state=VMState.WARM, base_url=url, token=fake_agent.TOKEN)
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    assert submission_dispatch_next(pool=pool) is not None
    submission.refresh_from_db()
    return submission


def agent_events(submission: Submission) -> list[tuple[str, int | None]]:
    return list(submission.events.filter(agent_seq__isnull=False).values_list("type", "agent_seq"))


def test_it_copies_the_agents_events_and_ends_with_its_result(owner: Any, local_pool: Any,
                                                              agent: fake_agent.FakeAgent) -> None:
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED
    assert submission.status_reason == "all 1 tests passed"
    assert submission.score_ms == 1.5
    assert submission.summary == {"tests": 1}
    assert submission.started_at
    assert submission.finished_at
    assert submission.lease_owner == ""
    assert [t for t, _ in agent_events(submission)] == [t for t, _ in agent.script]
    seqs = list(submission.events.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert submission.last_seq == seqs[-1]
    job = agent.jobs[f"{submission.pk}-1"]
    assert job["problem"] == submission.problem_version.bundle
    assert job["mode"] == "benchmark"
    vm = VMInstance.objects.get()
    assert vm.state == VMState.WARM
    assert vm.job_ref == ""
    detail_results = submission.events.filter(type="TEST_RESULT").count()
    assert detail_results == 1


@pytest.mark.parametrize("budget, limits", [(0.0, {}), (0.5, {"case_budget_s": 0.5})])
def test_the_job_asks_for_the_configured_case_budget_and_the_agent_takes_it(
        owner: Any, local_pool: Any, agent: fake_agent.FakeAgent, settings: Any, budget: float,
        limits: dict[str, float]) -> None:
    from agent.protocol import ResourceLimits

    settings.HIPJUDGE_CASE_BUDGET_S = budget
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    sent = agent.jobs[f"{submission.pk}-1"]["limits"]
    assert sent == limits  # unset: nothing asked, the agent's own default holds
    assert ResourceLimits.from_request(sent).case_budget_s == (budget or ResourceLimits().case_budget_s)


def test_it_resumes_after_the_last_agent_event_it_stored(owner: Any, local_pool: Any,
                                                         agent: fake_agent.FakeAgent) -> None:
    submission = dispatched(owner, local_pool, agent.url)
    # A previous runner stored the first three agent events, then its worker died.
    locked = Submission.objects.get(pk=submission.pk)
    append_events_locked(locked, [EventIn(t, p, attempt=1, agent_seq=i)
                                  for i, (t, p) in enumerate(agent.script[:3], start=1)])
    submission_run(submission_id=str(submission.pk))
    polls = [path for method, path in agent.calls if method == "GET" and "/events" in path]
    assert polls
    assert "after=3" in polls[0]
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
    assert submission.status == Status.ERROR
    assert "unknown status 'MAYBE'" in submission.status_reason


def test_a_lost_job_is_requeued_once_then_ends_in_error(owner: Any, local_pool: Any,
                                                        agent: fake_agent.FakeAgent) -> None:
    agent.events_status = 404
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.IN_QUEUE
    assert submission.vm is None
    assert submission.events.filter(type="REQUEUED").count() == 1
    assert VMInstance.objects.get().state == VMState.FAILED
    # Second attempt on a fresh VM, lost again: now it ends, with the reason.
    VMInstance.objects.create(pool=local_pool, state=VMState.WARM, base_url=agent.url, token=fake_agent.TOKEN)
    submission_dispatch_next(pool=local_pool)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.ERROR
    assert submission.attempt == 2
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
    assert submission.status == Status.COMPILING
    assert submission.lease_owner == "someone-else"


def test_a_cancel_before_the_job_starts_never_reaches_the_agent(owner: Any, local_pool: Any,
                                                               agent: fake_agent.FakeAgent) -> None:
    submission = dispatched(owner, local_pool, agent.url)
    Submission.objects.filter(pk=submission.pk).update(cancel_requested=True)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.CANCELLED
    assert agent.jobs == {}
    assert VMInstance.objects.get().state == VMState.WARM


def test_a_database_blip_mid_job_leaves_the_job_to_be_resumed_not_requeued(owner: Any, local_pool: Any,
                                                                            agent: fake_agent.FakeAgent,
                                                                            monkeypatch: Any) -> None:
    """The job goes on on the agent while the database is away: queueing it again would judge it
    twice (and find the VM still busy with it); the sweep resumes it once the lease lapses."""
    from django.db import OperationalError

    from submissions.runner import Runner

    submission = dispatched(owner, local_pool, agent.url)
    store = Runner._store
    calls = {"n": 0}

    def blip(self: Runner, events: list) -> bool:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OperationalError("server closed the connection unexpectedly")
        return store(self, events)

    monkeypatch.setattr(Runner, "_store", blip)
    agent.events_per_poll = 2  # the job's events come in several polls
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status in (Status.COMPILING, Status.CHECKING)
    assert submission.attempt == 1
    assert not submission.events.filter(type="REQUEUED").exists()
    assert submission.lease_owner == ""
    assert VMInstance.objects.get().state == VMState.BUSY

    submission_run(submission_id=str(submission.pk))  # what the sweep starts once the lease lapsed
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED
    assert submission.attempt == 1
    assert [s for _, s in agent_events(submission)] == list(range(1, len(agent.script) + 1))
    assert list(agent.jobs) == [f"{submission.pk}-1"]  # judged once


class SteppedHeartbeat(LeaseHeartbeat):
    """Beats when the test steps it: `waiting` is released each time the thread waits for its next beat."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.waiting, self.step = threading.Semaphore(0), threading.Semaphore(0)

    def wait_next_beat(self) -> bool:
        self.waiting.release()
        self.step.acquire()
        return self._stop.is_set()

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self.step.release()
        super().__exit__(*exc)


@pytest.mark.django_db(transaction=True)  # the heartbeat thread must see the rows
def test_a_cold_start_holds_a_short_lease_renewed_all_along(owner: Any, local_pool: Any, agent: fake_agent.FakeAgent,
                                                            settings: Any, monkeypatch: Any) -> None:
    """A lease taken for the whole start-up would outlive a worker killed mid-way: the sweep could
    not resume the job before the reaper failed the VM for starting too slowly, and the job would cost
    an attempt (the fault test saw it). The lease is one poll lease long, renewed while the VM starts."""
    settings.HIPJUDGE_POLL_LEASE = 30
    local_pool.provision_timeout_s = 600
    local_pool.save()
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    assert submission_dispatch_next(pool=local_pool) is not None  # no warm VM: a cold start
    heartbeats: list[SteppedHeartbeat] = []
    seen: list[tuple[datetime, datetime]] = []

    def heartbeat(**kwargs: Any) -> SteppedHeartbeat:
        heartbeats.append(SteppedHeartbeat(**kwargs))
        return heartbeats[-1]

    def slow_start(*, vm: VMInstance) -> VMInstance:
        [beating] = heartbeats  # the runner beats while the VM starts
        for beat in range(5):
            assert beating.waiting.acquire(timeout=30), f"beat {beat} never came"
            seen.append((clock.now, Submission.objects.values_list("lease_expires_at", flat=True).get(
                pk=submission.pk)))
            clock.advance(10)  # a third of the lease: the next beat is due
            beating.step.release()
        VMInstance.objects.filter(pk=vm.pk).update(state=VMState.BUSY, base_url=agent.url, token=fake_agent.TOKEN)
        vm.refresh_from_db()
        return vm

    monkeypatch.setattr("submissions.runner.vm_provision", slow_start)
    monkeypatch.setattr("submissions.runner.LeaseHeartbeat", heartbeat)
    with stepped_clock() as clock:
        submission_run(submission_id=str(submission.pk))
    # Each time, the lease ends one poll lease after the last beat: renewed, never start-up long.
    assert [until - at for at, until in seen] == [timedelta(seconds=30)] * 5
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED
    assert submission.attempt == 1


# ---- what the platform stores of what a job said ------------------------------------------------

def test_the_job_carries_an_opaque_compile_cache_scope_of_its_user(owner: Any, other_user: Any, local_pool: Any,
                                                                    agent: fake_agent.FakeAgent) -> None:
    from agent.judging.compile_cache import SCOPE_PATTERN

    scopes = []
    for user in (owner, owner, other_user):
        submission = dispatched(user, local_pool, agent.url)
        submission_run(submission_id=str(submission.pk))
        scopes.append(agent.jobs[f"{submission.pk}-1"]["cache_scope"])
        VMInstance.objects.all().delete()
    assert scopes[0] == scopes[1] != scopes[2]  # one user's builds are shared, another's never
    assert all(SCOPE_PATTERN.fullmatch(s) for s in scopes)
    assert owner.username not in scopes[0]


def test_the_platform_never_stores_an_over_long_reason_or_output(owner: Any, local_pool: Any,
                                                                 agent: fake_agent.FakeAgent) -> None:
    from agent.protocol import EVENT_REASON_CHARS, EVENT_TEXT_CHARS

    line = "x" * (3 << 20)  # a result line as a kernel writes it, well within the transport cap
    agent.script = [("COMPILE_RESULT", {"ok": True, "output": line, "cached": False, "seconds": 0.1}),
                    ("RESULT", {"status": "RUNTIME_ERROR", "reason": f"case 'n=1': {line}", "score_ms": None,
                                "summary": {"output": line, "tests": [{"message": line}]}})]
    submission = dispatched(owner, local_pool, agent.url)
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert submission.status == Status.RUNTIME_ERROR
    assert submission.status_reason.startswith("case 'n=1': xxx")
    assert len(submission.status_reason) <= EVENT_REASON_CHARS
    assert "more characters cut" in submission.status_reason
    assert len(submission.summary["output"]) <= EVENT_TEXT_CHARS
    assert len(submission.summary["tests"][0]["message"]) <= EVENT_REASON_CHARS
    for event in submission.events.all():
        assert len(json.dumps(event.payload)) <= 2 * EVENT_TEXT_CHARS + 10 * EVENT_REASON_CHARS, event.type
    result = submission.events.get(type="RESULT")
    assert result.payload["reason"] == submission.status_reason


def test_a_runner_that_finds_the_result_stored_gives_the_vm_back_at_once(owner: Any, local_pool: Any,
                                                                         agent: fake_agent.FakeAgent) -> None:
    """A runner stored the result, then its worker died before the release (issue 32): the next runner
    started for it (a task delivered again) releases the VM instead of leaving it to the sweep."""
    submission = dispatched(owner, local_pool, agent.url)
    finish(submission.pk, Status.ACCEPTED, "stored by a runner that died")
    assert VMInstance.objects.get().state == VMState.BUSY
    submission_run(submission_id=str(submission.pk))
    vm = VMInstance.objects.get()
    assert vm.state == VMState.WARM
    assert vm.job_ref == ""
    assert not agent.jobs  # nothing was sent to the agent again

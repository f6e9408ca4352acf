"""The SSE hub: a process watching 1,000+ submissions keeps working on SQLite,
and two viewers of one submission each get every event after their own cursor."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from submissions import sse
from submissions.services import EventIn, append_events_locked, lock_submission, submission_create
from tests.conftest import read_source, run_coroutine

WATCHED = 1100  # above SQLite's ~1000-term limit on one expression


@pytest.mark.django_db
def test_one_read_serves_more_than_a_thousand_watched_submissions(owner: Any, problems_loaded: Any, local_pool: Any,
                                                                  queued_tasks: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(sse, "close_old_connections", lambda: None)  # it would close the test's transaction
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    append_events_locked(lock_submission(submission.pk), [EventIn("LOG", {"n": 1}), EventIn("LOG", {"n": 2})])
    cursors = {uuid.uuid4(): 0 for _ in range(WATCHED - 1)}
    cursors[submission.pk] = 1
    statuses, events = sse._fetch(cursors)
    assert statuses == {submission.pk: ("IN_QUEUE", 3)}
    assert [e["seq"] for e in events[submission.pk]] == [2, 3]


def test_two_viewers_of_one_submission_keep_their_own_cursors(monkeypatch: Any) -> None:
    submission_id = uuid.uuid4()
    asked: list[dict[uuid.UUID, int]] = []

    def fetch(cursors: dict[uuid.UUID, int]) -> tuple[dict, dict]:
        asked.append(dict(cursors))
        after = cursors[submission_id]
        return ({submission_id: ("RUNNING", 7)},
                {submission_id: [{"seq": n, "type": "LOG", "payload": {}, "at": ""} for n in range(after + 1, 8)]})

    monkeypatch.setattr(sse, "_fetch", fetch)

    async def one_tick() -> tuple[sse.Subscription, sse.Subscription]:
        hub = sse.EventHub()
        ahead, fresh = sse.Subscription(submission_id, 5), sse.Subscription(submission_id, 0)
        hub._subs |= {ahead, fresh}
        await hub._tick()
        return ahead, fresh

    for _ in range(5):  # the set's order changes from run to run: no order may lose events
        ahead, fresh = run_coroutine(one_tick())
        assert asked[-1] == {submission_id: 0}
        assert [e["seq"] for e in fresh.events] == [1, 2, 3, 4, 5, 6, 7]
        assert [e["seq"] for e in ahead.events] == [6, 7]


@pytest.mark.django_db
def test_an_idle_tick_is_one_query_and_few_streams_are_polled_soon(
        owner: Any, problems_loaded: Any, local_pool: Any, queued_tasks: Any, monkeypatch: Any,
        django_assert_num_queries: Any, settings: Any) -> None:
    monkeypatch.setattr(sse, "close_old_connections", lambda: None)
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    with django_assert_num_queries(1):  # nothing new past the cursor: the statuses alone
        statuses, events = sse._fetch({submission.pk: 1})
    assert statuses == {submission.pk: ("IN_QUEUE", 1)}
    assert events == {}
    settings.HIPJUDGE_SSE_POLL_MIN, settings.HIPJUDGE_SSE_POLL = 0.02, 0.25
    assert sse.poll_interval(1) == sse.poll_interval(4) == 0.02  # a watcher's result reaches it soon
    assert sse.poll_interval(20) == pytest.approx(0.1)
    assert sse.poll_interval(200) == 0.25

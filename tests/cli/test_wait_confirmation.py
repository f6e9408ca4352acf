"""`--wait` on a leaderboard submission whose result is a record waits for the second judging that
confirms it, says so, and ends with the one ranked number the leaderboard shows (the slower of the
two), not the first judging's (against the real API, in process)."""

from __future__ import annotations

from typing import Any

import pytest

from cli.output import Printer
from cli.watch import follow
from leaderboard.rejudge import submission_confirm_record
from submissions.models import SubmissionEvent
from tests.cli.inprocess import InProcessClient
from tests.support import fake_agent
from tests.support.ranked import HOST_CASE, end, submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def result(mean_ms: float, speedup_reference_ms: float) -> dict[str, Any]:
    return fake_agent.leaderboard_script([(HOST_CASE, mean_ms, speedup_reference_ms)])[-1][1]


def test_wait_follows_a_records_confirmation_and_prints_the_ranked_number(owner: Any, api_as: Any,
                                                                          monkeypatch: Any, capsys: Any) -> None:
    submission = end(submit(owner), result(1.0, 1.22))  # the pool's first result: a record
    monkeypatch.setattr("cli.watch.time.sleep", lambda seconds: None)

    class Stream(InProcessClient):
        """The event stream: every stored event after `after`; the platform queues and runs the
        confirmation between the second and the third connection (its VM given back meanwhile)."""

        connections = 0

        def events(self, submission_id: str, after: int = 0) -> list[dict[str, Any]]:
            Stream.connections += 1
            if Stream.connections == 3:
                assert submission_confirm_record(submission_id=submission.pk, judging_id=submission.judging_id)
                end(submission, result(1.1, 1.03))
            rows = SubmissionEvent.objects.filter(submission_id=submission_id, seq__gt=after).order_by("seq")
            return [{"seq": e.seq, "type": e.type, "payload": e.payload} for e in rows]

    assert follow(Stream(api_as(owner)), Printer(), str(submission.pk), "leaderboard") == 0
    out = capsys.readouterr().out
    assert Stream.connections == 3
    assert out.count("a record: waiting for a second judging on a new secret seed") == 1
    assert "record confirmation: judging #2 on a new secret seed" in out
    assert "rank 1 on vector-add, pool local" in out
    assert "ranked score: 1.1000 ms" in out  # the slower of the two agreeing judgings
    assert "ranked score: 1.0000 ms" not in out and "1.22x" not in out  # the first judging's never reads as ranked
    assert "public benchmark score: 1.5000 ms (does not rank)" in out

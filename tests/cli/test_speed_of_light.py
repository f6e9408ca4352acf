"""The CLI says the speed of light: per case and per score in `status`, after a followed result, per
entry in `leaderboard`, and the best per pool in `problems` (against the real API, in process)."""

from __future__ import annotations

from typing import Any

import pytest

from cli.output import Printer
from cli.watch import follow
from tests.cli.inprocess import InProcessClient
from tests.cli.inprocess import run_cli as run
from tests.support.ranked import benchmarked, ranked

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def floor_ms(n: int) -> float:
    return 12 * n / 100e9 * 1e3  # vector-add on the host pool's default 100 GB/s



@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10


def test_status_prints_each_cases_and_the_scores_speed_of_light(owner: Any, api_as: Any, monkeypatch: Any,
                                                                capsys: Any) -> None:
    submission = benchmarked(owner, {"n=2^20": 0.5, "n=2^22": 1.0})
    assert run(monkeypatch, api_as(owner), "status", str(submission.pk)) == 0
    out = capsys.readouterr().out
    first = 100 * floor_ms(2**20) / 0.5
    assert (f"bench n=2^20: mean 0.5000 ms over 10 runs, {first:.1f}% of speed of light "
            f"(floor {floor_ms(2**20):.4f} ms, memory-bound)") in out
    score = (first * 100 * floor_ms(2**22) / 1.0) ** 0.5
    assert f"score: {submission.score_ms:.4f} ms, {score:.1f}% of speed of light" in out


def test_following_a_submission_ends_with_its_speed_of_light(owner: Any, api_as: Any, capsys: Any) -> None:
    submission = ranked(owner, 2.0)

    class Following(InProcessClient):
        def events(self, submission_id: str, after: int = 0) -> list[dict[str, Any]]:
            return [{"seq": 1, "type": "RESULT", "payload": {"status": "ACCEPTED", "reason": "ranked"}}]

    client = Following(api_as(owner))
    assert follow(client, Printer(), str(submission.pk), "leaderboard") == 0
    out = capsys.readouterr().out
    assert f"ranked score: {100 * floor_ms(3000017) / 2.0:.1f}% of speed of light" in out
    assert client.calls == [("GET", f"/submissions/{submission.pk}")]


def test_leaderboard_and_problems_show_the_percentages(owner: Any, other_user: Any, api_as: Any,
                                                       monkeypatch: Any, capsys: Any) -> None:
    ranked(owner, 2.0)
    ranked(other_user, 4.0)
    assert run(monkeypatch, api_as(owner), "leaderboard", "--problem", "vector-add") == 0
    board = capsys.readouterr().out
    assert "speed_of_light" in board.splitlines()[1]
    for user, mean in (("owner", 2.0), ("other", 4.0)):
        row = next(line for line in board.splitlines() if f" {user} " in line)
        assert f"{100 * floor_ms(3000017) / mean:.1f}%" in row
    assert run(monkeypatch, api_as(owner), "problems") == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("vector-add "))
    assert row.endswith(f"{100 * floor_ms(3000017) / 2.0:.1f}% (local)")

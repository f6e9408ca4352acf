"""One best per problem and pool, the same number on the problem list, in the API, in the CLI and on
the leaderboard: the ranked score where the user has one on the leaderboard (never the public
benchmark score of the same submission), else their fastest public benchmark, said to be one."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from django.urls import reverse

from cli.main import cmd_problems
from cli.output import Printer
from fleets.services import pool_ensure
from tests.cli.inprocess import InProcessClient
from tests.support.ranked import end, ranked, submit

pytestmark = pytest.mark.usefixtures("problems_loaded")


def test_your_best_is_the_leaderboards_number_everywhere(owner: Any, local_pool: Any, client_as: Any, api_as: Any,
                                                         capsys: Any) -> None:
    pool_ensure(name="demo", backend="local", device="host", max_vms=1, idle_timeout_s=60)
    board = ranked(owner, 3.428)  # its public benchmark scored 1.5 ms on other shapes
    assert board.score_ms == 1.5
    assert board.entry.ranked_score_ms == pytest.approx(3.428)
    end(submit(owner, pool="demo", mode="benchmark"), {"status": "ACCEPTED", "reason": "ok", "score_ms": 2.25})
    end(submit(owner, pool="demo", mode="benchmark"), {"status": "ACCEPTED", "reason": "ok", "score_ms": 2.5})

    page = client_as(owner).get(reverse("problem-list")).content.decode()
    assert "3.428 ms" in page
    assert "1.500 ms" not in page
    assert "2.250 ms" in page
    assert "2.500 ms" not in page

    api = api_as(owner)
    bests = next(p for p in api.get("/api/v1/problems").json() if p["slug"] == "vector-add")["your_best"]
    assert [(b["pool"], b["score_ms"], b["kind"]) for b in bests] == [
        ("local", pytest.approx(3.428), "ranked"), ("demo", 2.25, "benchmark")]
    assert bests[0]["submission"] == str(board.pk)
    assert api.get("/api/v1/problems/vector-add").json()["your_best"] == bests
    row = api.get("/api/v1/problems/vector-add/leaderboard").json()["rows"][0]
    assert row["score_ms"] == bests[0]["score_ms"]

    assert cmd_problems(argparse.Namespace(), InProcessClient(api), Printer()) == 0  # type: ignore[arg-type]
    assert "3.4280 ranked (local); 2.2500 benchmark (demo)" in capsys.readouterr().out

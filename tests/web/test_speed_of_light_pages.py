"""The speed of light on the pages: per case and per score on the result page, per entry on the
leaderboard, and the best per pool on the problem list and the problem page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

pytestmark = pytest.mark.usefixtures("problems_loaded")


def pct(floor_ms: float, mean_ms: float) -> str:
    return f"{100 * floor_ms / mean_ms:.1f} %"


def floor_ms(n: int) -> float:
    return 12 * n / 100e9 * 1e3  # vector-add on the host pool's default 100 GB/s


def cells(page: str, testid: str) -> list[str]:
    return re.findall(rf'data-testid="{testid}"[^>]*>([^<]*)<', page)


def test_the_result_page_shows_each_cases_floor_and_percentage(client_as: Any, owner: Any,
                                                               make_submission: Any) -> None:
    submission = make_submission(owner, "ranked", score=1.5)
    page = client_as(owner).get(reverse("submission-detail", kwargs={"submission_id": submission.pk})).content.decode()
    assert cells(page, "case-light") == [pct(floor_ms(2**20), 1.5), pct(floor_ms(2**22), 6.0)]
    assert cells(page, "ranked-case-light") == [pct(floor_ms(3000017), 1.5)]
    assert cells(page, "ranked-light") == [f"{pct(floor_ms(3000017), 1.5)} of speed of light"]
    score_floor = (floor_ms(2**20) * floor_ms(2**22)) ** 0.5
    assert cells(page, "score-light") == [f"{pct(score_floor, 1.5)} of speed of light"]
    assert "the floor is 360.00 µs, set by the pool&#x27;s peak memory bandwidth" in page


def test_an_unfinished_submission_shows_no_percentage_yet(client_as: Any, owner: Any, make_submission: Any) -> None:
    submission = make_submission(owner, "running")
    page = client_as(owner).get(reverse("submission-detail", kwargs={"submission_id": submission.pk})).content.decode()
    assert "of speed of light" not in page


def test_the_leaderboard_shows_each_entrys_percentage(client_as: Any, owner: Any, other_user: Any,
                                                      make_submission: Any) -> None:
    make_submission(owner, "ranked", score=1.5)
    make_submission(other_user, "ranked", score=2.0)
    page = client_as(None).get(reverse("leaderboard", kwargs={"slug": "vector-add"})).content.decode()
    assert cells(page, "leaderboard-light") == [pct(floor_ms(3000017), 1.5), pct(floor_ms(3000017), 2.0)]


def test_the_problem_list_and_page_show_the_best_percentage_per_pool(client_as: Any, owner: Any, other_user: Any,
                                                                    make_submission: Any) -> None:
    make_submission(owner, "ranked", score=2.0)
    make_submission(other_user, "ranked", score=1.5)
    listing = client_as(None).get(reverse("problem-list")).content.decode()
    assert [c.strip() for c in cells(listing, "best-light")] == [pct(floor_ms(3000017), 1.5)]
    page = client_as(None).get(reverse("problem-detail", kwargs={"slug": "vector-add"})).content.decode()
    assert cells(page, "best-light") == [f"· best {pct(floor_ms(3000017), 1.5)} of speed of light on local"]

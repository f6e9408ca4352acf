"""A kernel author reads how close their kernel came to the speed of light, in a real browser
against the real web process: per benchmark case and for the score on the result page, then on the
leaderboard. The results are stored as the runner stores them (no agent run: the figures are then
known, so the page is held to the exact percentages)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.conftest import shot
from tests.browser.test_journeys import _sign_up
from tests.integration.conftest import Stack
from tests.support.ranked import benchmarked, ranked

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.timeout(180)]


def floor_ms(n: int) -> float:
    return 12 * n / 100e9 * 1e3  # vector-add on the host pool's default 100 GB/s


@pytest.fixture
def web_only(stack: Stack, local_pool: Any, problems_loaded: None, settings: Any) -> str:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10
    return stack.start_web()


def test_the_result_page_and_the_leaderboard_show_the_speed_of_light(web_only: str, page: Any) -> None:
    from playwright.sync_api import expect

    site = web_only
    _sign_up(page, site, "grace")
    grace = User.objects.get(username="grace")
    submission = benchmarked(grace, {"n=2^20": 0.5, "n=2^22": 1.0})
    page.goto(f"{site}/submissions/{submission.pk}/")
    expect(page.get_by_test_id("status")).to_have_text("Accepted")
    cells = page.get_by_test_id("case-light")
    expect(cells).to_have_text([f"{100 * floor_ms(2**20) / 0.5:.1f} %", f"{100 * floor_ms(2**22) / 1.0:.1f} %"])
    expect(cells.first).to_have_attribute("title", "Speed of light: the floor is 125.83 µs, set by the pool's peak "
                                                   "memory bandwidth")
    score = (100 * floor_ms(2**20) / 0.5 * 100 * floor_ms(2**22) / 1.0) ** 0.5
    expect(page.get_by_test_id("score-light")).to_have_text(f"{score:.1f} % of speed of light")
    shot(page, "20-speed-of-light-result")

    ranked(grace, 2.0)
    page.goto(f"{site}/problems/vector-add/leaderboard/")
    expect(page.locator("table.leaderboard tbody tr.me").get_by_test_id("leaderboard-light")).to_have_text(
        f"{100 * floor_ms(3000017) / 2.0:.1f} %")
    shot(page, "21-speed-of-light-leaderboard")
    assert page.js_errors == []

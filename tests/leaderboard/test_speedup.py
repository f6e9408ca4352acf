"""A ranked speedup comes with its 95 % interval and a plain word: the problem's own solution
submitted as is reads "within noise" on the page, in the API and in the CLI, whichever side of 1
its number falls; a clear gain reads "faster"."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from cli.output import speedup
from leaderboard.speedup import speedup_of
from tests.support import fake_agent
from tests.support.ranked import HOST_CASE, end_confirmed, submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def ranked_with(owner: Any, *, mean_ms: float, reference_ms: float, paired: float) -> Any:
    """A leaderboard submission whose one ranked case has these means and this paired speedup."""
    case = fake_agent.ranked_case(HOST_CASE, 0, 1, mean_ms, reference_ms)
    case["speedup"] = paired  # the median of the pairs, which need not be the ratio of the means
    script = fake_agent.leaderboard_script()
    result = dict(script[-1][1])
    result["summary"] = {**result["summary"], "ranked": fake_agent.ranked_summary([case])}
    return end_confirmed(submit(owner), result)  # the pool's first result: a record, confirmed


def test_the_problems_own_solution_reads_within_noise_everywhere(owner: Any, client_as: Any, api_as: Any) -> None:
    submission = ranked_with(owner, mean_ms=1.0, reference_ms=1.02, paired=0.89)
    page = client_as(owner).get(reverse("submission-detail", kwargs={"submission_id": submission.pk})).content.decode()
    assert "0.89× within noise (95 % 0.87–1.06×)" in page
    assert "as fast as the problem&#x27;s own solution (a speedup under about 1.1x either way is noise" in page
    board = client_as(owner).get(reverse("leaderboard", kwargs={"slug": "vector-add"})).content.decode()
    assert "0.89× <span class=\"muted\" title=\"Within noise" in board

    ranked = api_as(owner).get(f"/api/v1/submissions/{submission.pk}").json()["ranked"]
    assert ranked["speedup_note"] == "within noise"
    assert ranked["speedup_ci95"] == [pytest.approx(0.8655, abs=1e-3), pytest.approx(1.0616, abs=1e-3)]
    assert speedup(ranked) == "0.89x (95% 0.87..1.06x), within noise"


def test_a_clear_gain_reads_faster_and_a_wide_interval_over_one_within_noise() -> None:
    case = {"mean_ms": 1.0, "ci95_ms": [0.98, 1.02], "reference_mean_ms": 1.5, "reference_ci95_ms": [1.47, 1.53]}
    faster = speedup_of(value=1.5, cases=[case])
    assert faster is not None
    assert faster.word == "faster"
    assert faster.ci95 is not None
    assert faster.ci95[0] > 1.4
    noisy = {**case, "ci95_ms": [0.6, 1.4]}  # ±40 %: a 1.2x gain cannot be told from none
    wide = speedup_of(value=1.2, cases=[noisy])
    assert wide is not None
    assert wide.word == "within noise"
    assert speedup_of(value=None, cases=[case]) is None
    # The paired median and the ratio of the means disagree: the interval holds both.
    apart = speedup_of(value=0.89, cases=[{**case, "reference_mean_ms": 1.02, "reference_ci95_ms": [1.0, 1.04],
                                          "speedup": 0.89}])
    assert apart is not None
    assert apart.ci95 is not None
    assert apart.ci95[0] < 0.89
    assert apart.ci95[1] > 1.02
    bare = speedup_of(value=0.95, cases=[])  # no cases (a leaderboard row): the pool's noise band alone
    assert bare is not None
    assert bare.ci95 is None
    assert bare.word == "within noise"

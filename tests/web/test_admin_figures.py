"""The admin writes times and speedups as the pages do: a judging's score, ranked score with its
interval and speedup, and the submission list's scores, never a raw float's 17 digits."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from leaderboard.models import LeaderboardEntry
from submissions.models import Judging, Submission
from tests.support.ranked import ranked

pytestmark = pytest.mark.usefixtures("problems_loaded")
CHANGELIST = "/admin/submissions/submission/"
RAW = 1.2345678901234567


def test_the_judgings_table_and_the_list_format_their_figures(admin_client: Client, owner: Any,
                                                             local_pool: Any) -> None:
    submission = ranked(owner, 2.0)
    Judging.objects.filter(submission=submission).update(score_ms=RAW, ranked_score_ms=RAW, ranked_speedup=RAW,
                                                         ranked_ci95_lo_ms=RAW * .99, ranked_ci95_hi_ms=RAW * 1.01)
    Submission.objects.filter(pk=submission.pk).update(score_ms=RAW)
    LeaderboardEntry.objects.filter(submission=submission).update(ranked_score_ms=RAW)
    html = admin_client.get(f"{CHANGELIST}{submission.pk}/change/").content.decode()
    # The judgings table (the stored fields, folded below it, are shown raw on purpose).
    page = html[html.index('id="judgings-group"'):html.index('id="events-group"')]
    listing = admin_client.get(CHANGELIST).content.decode()
    for html in (page, listing):
        assert "1.2345678" not in html
        assert "1.235 ms" in html
    assert "1.23×" in page
    assert "95 % 1.222 ms – 1.247 ms" in page

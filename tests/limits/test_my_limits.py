"""Users see their own limits: GET /api/v1/me and the account page show both caps with what is
used, held and when they reset, and a suspension with its reason."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from limits.models import Suspension
from tests.limits.conftest import submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool", "credit")


def test_me_shows_the_caps_used_held_and_their_resets(owner: Any, paid_pool: Any, allowance: Any, spend: Any,
                                                      api_as: Any) -> None:
    allowance(owner, "8")
    spend(paid_pool, "1.5", user=owner)
    assert submit(api_as(owner), "mi300x").status_code == 201
    limits = api_as(owner).get("/api/v1/me").json()["limits"]
    assert limits["suspended"] == ""
    assert limits["reserve_seconds"] == 120
    monthly, daily = limits["monthly_spend_usd"], limits["daily_gpu_seconds"]
    assert (monthly["cap"], monthly["used"], monthly["held"]) == ("8.000000", "1.500000", "0.066333")
    assert (daily["cap"], daily["used"], daily["held"]) == ("3600.000000", "0.000000", "120.000000")
    assert monthly["resets_at"].endswith("-01T00:00:00Z")
    assert daily["resets_at"].endswith("T00:00:00Z")


def test_me_and_the_account_page_show_a_suspension(client: Any, owner: Any, api_as: Any) -> None:
    Suspension.objects.create(user=owner, reason="Shared the account.")
    assert "(Shared the account)" in api_as(owner).get("/api/v1/me").json()["limits"]["suspended"]
    client.force_login(owner)
    html = client.get(reverse("account")).content.decode()
    assert "(Shared the account)" in html
    assert 'data-testid="gpu-seconds"' in html
    assert "Monthly cap</dt><dd>$20.00" in html.replace("\n", "")  # the default cap

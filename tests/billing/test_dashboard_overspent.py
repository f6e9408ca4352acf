"""The cost dashboard never shows a negative amount remaining: past the credit it says $0.00 and by
how much the credit was overspent."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

DASHBOARD = "/admin/billing/ledgerentry/dashboard/"


def test_an_overspent_credit_reads_zero_remaining_and_says_by_how_much(admin_client: Any, paid_pool: Any,
                                                                      grant: Any, spend: Any) -> None:
    grant("1", starts_at=timezone.now() - timedelta(days=2))
    spend(paid_pool, "1.14")
    html = admin_client.get(DASHBOARD).content.decode()
    assert 'data-testid="remaining">$0.00<' in html
    assert "overspent by $0.14" in html
    assert "$-0.14" not in html and "-0.14" not in html


def test_credit_left_reads_as_it_is(admin_client: Any, paid_pool: Any, grant: Any, spend: Any) -> None:
    grant("1", starts_at=timezone.now() - timedelta(days=2))
    spend(paid_pool, "0.25")
    html = admin_client.get(DASHBOARD).content.decode()
    assert 'data-testid="remaining">$0.75<' in html
    assert "overspent" not in html

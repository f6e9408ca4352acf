"""Template tags: the budget banner on every admin page."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils.html import format_html

from billing.alerts import NOBODY_TOLD, alert_recipients
from billing.selectors import budget_status

register = template.Library()


@register.simple_tag(takes_context=True)
def budget_banner(context: dict[str, Any]) -> str:
    """On every admin page while the spend is at or above the first alert threshold (or stopped)."""
    request = context.get("request")
    if request is None or not getattr(request.user, "is_staff", False):
        return ""
    status = context.get("budget_status") or budget_status()  # the dashboard computed it already
    used = status.used_pct
    link = reverse("admin:billing_dashboard")
    lowest = min(settings.HIPJUDGE_BUDGET_ALERT_THRESHOLDS, default=80)
    if not status.exhausted and (used is None or used < lowest):
        return ""
    # An alert fired (or would): say so when its email reached nobody.
    told = context["nobody_told"] if "nobody_told" in context else ("" if alert_recipients() else NOBODY_TOLD)
    nobody = format_html(' <strong class="nobody-told">{}</strong>', told) if told else ""
    if status.exhausted:
        return format_html('<div class="budget-banner bad" role="alert">{} <a href="{}">Cost dashboard</a>{}</div>',
                           status.stop_reason, link, nobody)
    return format_html(
        '<div class="budget-banner warn" role="alert">{} % of the GPU credit is used ({} of {} USD, {} USD left). '
        'Paid pools stop at 100 %. <a href="{}">Cost dashboard</a>{}</div>',
        used, f"{status.spent:.2f}", f"{status.credit:.2f}", f"{status.remaining:.2f}", link, nobody)


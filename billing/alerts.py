"""Budget alerts: a BudgetAlert once per active grant and threshold the spend has reached, an email
to staff and a log line (the admin banner reads the live status, see billing.templatetags)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction

from billing.models import BudgetAlert
from billing.selectors import BudgetStatus, budget_status
from core import clock
from core.logs import log_event

log = logging.getLogger(__name__)


# Said wherever the admin shows the budget while alerts would reach nobody.
NOBODY_TOLD = ("Budget alerts reach nobody: no active staff user has an email address. Give one to a staff user "
               "(`make run` takes HIPJUDGE_ADMIN_EMAIL for the admin user).")


def alert_recipients() -> list[str]:
    """Who the budget alerts are emailed to: every active staff user with an email address."""
    return list(get_user_model().objects.filter(is_staff=True, is_active=True).exclude(email="")
                .values_list("email", flat=True))


def budget_check(*, now: datetime | None = None, status: BudgetStatus | None = None) -> list[BudgetAlert]:
    """Fire the alerts of every threshold the spend has reached, once per grant and threshold."""
    now = now or clock.now()
    status = status or budget_status(now=now)
    used = status.used_pct
    if used is None:
        return []
    fired: list[BudgetAlert] = []
    for threshold in settings.HIPJUDGE_BUDGET_ALERT_THRESHOLDS:
        if used < threshold:
            continue
        for grant_id in status.grant_ids:
            with transaction.atomic():
                alert, created = BudgetAlert.objects.get_or_create(grant_id=grant_id, threshold=threshold, defaults={
                    "fired_at": now, "used_pct": used, "spent": status.spent, "credit": status.credit})
            if created:
                fired.append(alert)
    if fired:
        _announce(fired, status)
    return fired


def _announce(alerts: list[BudgetAlert], status: BudgetStatus) -> None:
    threshold = max(a.threshold for a in alerts)
    line = (f"HIPJudge budget alert: {status.used_pct} % of the GPU credit used "
            f"({status.spent:.2f} of {status.credit:.2f} USD, {status.remaining:.2f} USD left; "
            f"threshold {threshold} %).")
    for alert in alerts:
        log_event(log, "budget.alert", line, level=logging.WARNING, grant=alert.grant_id, threshold=alert.threshold)
    recipients = alert_recipients()
    if not recipients:
        log.warning("budget alert: no staff user has an email address; nobody was emailed (the admin says so)")
        return
    body = line + "\n\n"
    if threshold >= 100:
        body += "Paid pools are stopped: nothing new is provisioned and warm VMs are drained. Add a credit grant in "
        body += "the admin to resume.\n"
    else:
        body += "At 100 % paid pools stop taking work. See the cost dashboard in the admin.\n"
    try:
        send_mail(f"[HIPJudge] {status.used_pct} % of the GPU credit used", body, settings.DEFAULT_FROM_EMAIL,
                  recipients)
    except Exception:  # the alert row exists either way; a mail outage must not stop billing
        log.exception("sending the budget alert email")

"""Writes that guard the budget: alerts at thresholds, the hard stop, and resuming on a new grant.

- budget_check: a BudgetAlert once per active grant and threshold the spend has reached: an email
  to staff, a log line (the admin banner reads the live status, see billing.templatetags).
- budget_enforce: at the hard stop, warm VMs of paid pools are stopped (busy ones drain after their
  job: their release to WARM triggers this again through the vm_state_changed receiver).
- credit_grant_create: a new grant; paid pools with queued work are dispatched again at once.
"""

from __future__ import annotations

import logging
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from billing.models import BudgetAlert, CreditGrant
from billing.selectors import BudgetStatus, budget_status, fleet_is_paid
from config.queue import enqueue
from fleets.models import Fleet, VMInstance, VMState
from fleets.services import vm_stop
from submissions.models import Status, Submission

log = logging.getLogger(__name__)


def budget_check(*, now: datetime | None = None, status: BudgetStatus | None = None) -> list[BudgetAlert]:
    """Fire the alerts of every threshold the spend has reached, once per grant and threshold."""
    now = now or timezone.now()
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
    log.warning(line)
    recipients = list(get_user_model().objects.filter(is_staff=True, is_active=True).exclude(email="")
                      .values_list("email", flat=True))
    if not recipients:
        log.warning("budget alert: no staff user has an email address; nobody was emailed")
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


def budget_enforce(*, status: BudgetStatus | None = None) -> int:
    """At the hard stop, stop the warm (idle) VMs of paid pools. Returns how many were stopped."""
    status = status or budget_status()
    if not status.exhausted:
        return 0
    stopped = 0
    for vm in VMInstance.objects.filter(state=VMState.WARM).select_related("fleet"):
        if fleet_is_paid(vm.fleet):
            stopped += vm_stop(vm=vm, reason=status.stop_reason)
    return stopped


def credit_grant_create(*, name: str, amount: Decimal, starts_at: datetime | None = None,
                        expires_at: datetime | None = None, note: str = "") -> CreditGrant:
    """A new grant; paid pools resume at once (queued submissions are dispatched again)."""
    if amount < 0:
        raise ValueError("a grant cannot be negative")
    grant = CreditGrant(name=name, amount=amount, starts_at=starts_at or timezone.now(), expires_at=expires_at,
                        note=note)
    grant.full_clean()
    grant.save()
    transaction.on_commit(pools_resume)
    log.info("credit grant %s: %s USD", grant.name, grant.amount)
    return grant


def pools_resume() -> int:
    """Ask paid pools with queued submissions to dispatch (after the budget allows it again)."""
    fleet_ids = set(Submission.objects.filter(status=Status.IN_QUEUE).values_list("fleet_id", flat=True))
    count = 0
    for fleet in Fleet.objects.filter(pk__in=fleet_ids):
        if fleet_is_paid(fleet):
            enqueue("submissions.tasks.dispatch", str(fleet.pk), save=False)
            count += 1
    return count

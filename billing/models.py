"""Billing: the append-only ledger of VM time, credit grants, budget alerts and per-user caps.

Money is Decimal USD with 6 places. A LedgerEntry is never changed or deleted: a correction is a
new entry (source `adjustment` or `reconciliation`). The accrual cursor (VMAccrual) and the VM's
observed state history (VMStateChange) are bookkeeping for `billing.services.ledger_accrue`.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any, NoReturn

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q

from fleets.models import Pool, VMInstance

MONEY: dict[str, Any] = {"max_digits": 18, "decimal_places": 6}


class LedgerImmutable(Exception):
    """Someone tried to change or delete a ledger entry; book a correcting entry instead."""


class Phase(models.TextChoices):
    PROVISIONING = "provisioning"
    BUSY = "busy"
    IDLE = "idle"
    DRAINING = "draining"


class Source(models.TextChoices):
    ACCRUAL = "accrual"
    RECONCILIATION = "reconciliation"
    ADJUSTMENT = "adjustment"
    # The platform's own faults (billing.faults): a pair per accrual entry that charged a user for time
    # only a fault cost (a runner that died, a lapsing lease, a retried attempt, a VM left idle), the
    # user's credit (negative seconds and amount) and the platform's charge (no user).
    PLATFORM_FAULT = "platform_fault", "platform fault"


class RateSource(models.TextChoices):
    DSTACK = "dstack", "dstack instance price"
    POOL = "fleet", "pool hourly rate"  # the stored value predates the word "pool"
    NONE = "", "not a rate (correction)"


class LedgerQuerySet(models.QuerySet["LedgerEntry"]):
    def update(self, **kwargs: Any) -> NoReturn:
        raise LedgerImmutable("Ledger entries cannot be updated; book a correcting entry.")

    def delete(self) -> NoReturn:
        raise LedgerImmutable("Ledger entries cannot be deleted; book a correcting entry.")


class LedgerEntry(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # PROTECT: a VM or pool with money booked against it stays on record.
    vm = models.ForeignKey(VMInstance, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entries")
    pool = models.ForeignKey(Pool, on_delete=models.PROTECT, related_name="ledger_entries", db_column="fleet_id")
    # SET_NULL: deleting a user (or their submission) must not make the money disappear.
    submission = models.ForeignKey("submissions.Submission", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="ledger_entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="ledger_entries")
    phase = models.CharField(max_length=16, choices=Phase.choices, blank=True,
                             help_text="What the VM was doing; blank for corrections.")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    seconds = models.DecimalField(max_digits=18, decimal_places=6)
    rate_per_hour = models.DecimalField(**MONEY)
    rate_source = models.CharField(max_length=16, choices=RateSource.choices, blank=True)
    amount = models.DecimalField(**MONEY, help_text="USD; negative for a credit back.")
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.ACCRUAL)
    note = models.TextField(blank=True)
    # A platform-fault pair names the accrual entry it corrects.
    corrects = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = LedgerQuerySet.as_manager()

    class Meta:
        ordering = ["-period_start"]
        verbose_name_plural = "ledger entries"
        indexes = [
            models.Index(fields=["period_start"]),
            models.Index(fields=["user", "period_start"]),
            models.Index(fields=["pool", "period_start"], name="billing_led_fleet_i_9f61ec_idx"),
        ]
        constraints = [
            # Running the accrual twice (or in two workers) can never book one period twice.
            models.UniqueConstraint(fields=["vm", "phase", "period_start"], condition=Q(source="accrual"),
                                    name="ledger_accrual_unique_period"),
            models.CheckConstraint(condition=Q(period_end__gte=models.F("period_start")),
                                   name="ledger_period_ordered"),
            # Settling a fault twice (or in two workers) books one credit and one charge per entry.
            models.UniqueConstraint(fields=["corrects"], condition=Q(source="platform_fault", seconds__lt=0),
                                    name="ledger_fault_credit_once"),
            models.UniqueConstraint(fields=["corrects"], condition=Q(source="platform_fault", seconds__gt=0),
                                    name="ledger_fault_charge_once"),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.phase or '-'} {self.amount} USD"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise LedgerImmutable("Ledger entries cannot be changed; book a correcting entry.")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise LedgerImmutable("Ledger entries cannot be deleted; book a correcting entry.")


class VMAccrual(models.Model):
    """Per-VM accrual cursor: the row `ledger_accrue` locks, and how far the VM is booked."""

    vm = models.OneToOneField(VMInstance, primary_key=True, on_delete=models.CASCADE, related_name="billing_accrual")
    accrued_until = models.DateTimeField()
    closed = models.BooleanField(default=False, help_text="The VM ended and is booked to its end.")
    # The backend's own price for this VM when it reported one (dstack offers), else the pool's rate.
    price_per_hour = models.DecimalField(**MONEY, null=True, blank=True)
    price_source = models.CharField(max_length=16, choices=RateSource.choices, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.vm_id} until {self.accrued_until:%Y-%m-%d %H:%M:%S}"


class VMStateChange(models.Model):
    """A VM state as observed from its row (state, since when, the job it served)."""

    vm = models.ForeignKey(VMInstance, on_delete=models.CASCADE, related_name="billing_states")
    state = models.CharField(max_length=16)
    at = models.DateTimeField()
    job_ref = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["vm", "at"]
        constraints = [models.UniqueConstraint(fields=["vm", "at", "state"], name="vm_state_change_unique")]

    def __str__(self) -> str:
        return f"{self.vm_id} {self.state} @ {self.at:%H:%M:%S}"


class CreditGrant(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200, help_text="e.g. 'AMD Developer Cloud credits, 2026'")
    amount = models.DecimalField(**MONEY, validators=[MinValueValidator(Decimal("0"))])
    starts_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_at"]
        constraints = [models.CheckConstraint(condition=Q(expires_at__isnull=True) | Q(expires_at__gt=models.F(
            "starts_at")), name="grant_expires_after_start")]

    def __str__(self) -> str:
        return f"{self.name} ({self.amount} USD)"


class BudgetAlert(models.Model):
    grant = models.ForeignKey(CreditGrant, on_delete=models.CASCADE, related_name="alerts")
    threshold = models.PositiveSmallIntegerField(help_text="Percent of the credit used.")
    fired_at = models.DateTimeField()
    used_pct = models.DecimalField(max_digits=9, decimal_places=2)
    spent = models.DecimalField(**MONEY)
    credit = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["-fired_at"]
        constraints = [models.UniqueConstraint(fields=["grant", "threshold"], name="budget_alert_once")]

    def __str__(self) -> str:
        return f"{self.threshold} % of {self.grant}"


class UserSpendLimit(models.Model):
    """A user's spend allowance of their own: it opens every paid pool to them (limits.selectors) and
    replaces the default monthly cap (settings.HIPJUDGE_USER_MONTHLY_CAP). An allowance of 0 opens
    nothing and allows nothing."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="spend_limit")
    monthly_cap = models.DecimalField(
        **MONEY, null=True, blank=True, validators=[MinValueValidator(Decimal("0"))], verbose_name="monthly allowance",
        help_text="USD per calendar month (UTC) this user's jobs may cost on paid pools; it opens every paid pool "
                  "to them. Empty: no cap. 0: no access through an allowance.")
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name = "spend allowance"

    def __str__(self) -> str:
        return f"{self.user} cap {self.monthly_cap}"


class ReconciliationReport(models.Model):
    """One comparison of our booked cost with the provider's for a pool and a window."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="reconciliations", db_column="fleet_id")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    ours = models.DecimalField(**MONEY, help_text="Booked before this run, prorated to the window.")
    theirs = models.DecimalField(**MONEY, help_text="Provider price × instance lifetime in the window.")
    gap = models.DecimalField(**MONEY)
    gap_pct = models.DecimalField(max_digits=9, decimal_places=2)
    instances = models.PositiveIntegerField(default=0)
    entry = models.ForeignKey(LedgerEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.pool} {self.period_start:%Y-%m-%d} gap {self.gap_pct} %"

"""Access to paid pools and account suspensions.

A paid pool (billing.selectors.pool_is_paid) takes submissions from members of the group its
PoolGroupAccess names and from users with a spend allowance of their own (billing.UserSpendLimit);
free pools are open to everyone. A Suspension stops a user submitting to any pool.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models

from fleets.models import Pool


class PoolGroupAccess(models.Model):
    pool = models.OneToOneField(Pool, primary_key=True, on_delete=models.CASCADE, related_name="access",
                                verbose_name="pool", db_column="fleet_id")
    # CASCADE: deleting the group closes the pool to all but users with an allowance (fails closed).
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="+",
                              help_text="Members of this group may submit to the pool (if it is paid).")

    class Meta:
        verbose_name = "paid pool access"
        db_table = "limits_fleetaccess"  # the table from before the model was named PoolGroupAccess
        verbose_name_plural = "paid pool access"

    def __str__(self) -> str:
        return f"{self.pool.name} open to {self.group.name}"


class Suspension(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="suspension")
    reason = models.CharField(max_length=300, help_text="Shown to the user with every refusal.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.user.get_username()} suspended: {self.reason}"

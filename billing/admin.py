"""Billing in the admin: a read-only ledger, grants (a new one resumes paid pools), alerts, user
caps, reconciliation reports, and the cost dashboard (a view of the ledger's admin)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from billing.dashboard import dashboard_data
from billing.models import BudgetAlert, CreditGrant, LedgerEntry, ReconciliationReport, UserSpendLimit
from billing.services import credit_grant_create


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    """Append-only: entries are viewed, never changed or deleted; a correction is a new entry."""

    list_display = ("period_start", "source", "phase", "pool", "vm_short", "user", "seconds", "rate_per_hour",
                    "rate_source", "amount")
    list_filter = ("source", "phase", "pool", "rate_source")
    list_select_related = ("pool", "user")
    search_fields = ("id", "vm__id", "submission__id", "user__username", "note")
    date_hierarchy = "period_start"
    readonly_fields = [f.name for f in LedgerEntry._meta.fields]

    @admin.display(description="VM")
    def vm_short(self, entry: LedgerEntry) -> str:
        return str(entry.vm_id)[:8] if entry.vm_id else "-"

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.dashboard_view)
        return [path("dashboard/", view, name="billing_dashboard"), *super().get_urls()]

    def dashboard_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):  # the platform's costs: staff who may read the ledger
            raise PermissionDenied
        data = dashboard_data()
        context = {**self.admin_site.each_context(request), "title": "Cost dashboard", "data": data,
                   "budget_status": data["status"], "nobody_told": data["nobody_told"], "opts": self.model._meta}
        return TemplateResponse(request, "admin/billing/dashboard.html", context)


@admin.register(CreditGrant)
class CreditGrantAdmin(admin.ModelAdmin):
    list_display = ("name", "amount", "starts_at", "expires_at", "created_at")
    fields = ("name", "amount", "starts_at", "expires_at", "note")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # The amount and dates of a grant already spent against are history; add a new grant instead.
        return ("amount", "starts_at") if obj is not None else ()

    def save_model(self, request: HttpRequest, obj: CreditGrant, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created = credit_grant_create(name=obj.name, amount=obj.amount, starts_at=obj.starts_at,
                                      expires_at=obj.expires_at, note=obj.note)
        obj.pk = created.pk
        obj._state.adding = False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # spend was measured against it; let it expire instead


@admin.register(BudgetAlert)
class BudgetAlertAdmin(ReadOnlyAdmin):
    list_display = ("fired_at", "threshold", "grant", "used_pct", "spent", "credit")
    list_select_related = ("grant",)


@admin.register(UserSpendLimit)
class UserSpendLimitAdmin(admin.ModelAdmin):
    list_display = ("user", "monthly_cap", "note")
    autocomplete_fields = ("user",)
    search_fields = ("user__username",)


@admin.register(ReconciliationReport)
class ReconciliationReportAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "pool", "period_start", "period_end", "ours", "theirs", "gap", "gap_pct",
                    "instances", "booked")
    list_filter = ("pool",)
    list_select_related = ("pool",)

    @admin.display(boolean=True, description="booked")
    def booked(self, report: ReconciliationReport) -> bool:
        return report.entry_id is not None

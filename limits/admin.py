"""Limits in the admin: which group may use each paid pool, suspensions, and the month's top
spenders with a one-click suspend. Every change goes through limits.services, and each custom
view checks its own permission (not just is_staff): seeing spend needs billing.view_ledgerentry,
suspending limits.add_suspension, lifting limits.delete_suspension."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST

from billing.selectors import pool_is_paid
from core.auth import request_user
from core.exceptions import ApplicationError
from limits.models import PoolGroupAccess, Suspension
from limits.selectors import top_spenders
from limits.services import user_suspend, user_unsuspend

SEE_SPEND, SUSPEND, UNSUSPEND = "billing.view_ledgerentry", "limits.add_suspension", "limits.delete_suspension"


def _require(request: HttpRequest, permission: str) -> None:
    if not request.user.has_perm(permission):
        raise PermissionDenied


@admin.register(PoolGroupAccess)
class PoolGroupAccessAdmin(admin.ModelAdmin):
    list_display = ("pool", "group", "paid")
    list_select_related = ("pool", "group")
    autocomplete_fields = ("pool", "group")

    @admin.display(boolean=True, description="paid (free pools are open to all)")
    def paid(self, access: PoolGroupAccess) -> bool:
        return pool_is_paid(access.pool)


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    list_display = ("user", "reason", "created_by", "created_at")
    list_select_related = ("user", "created_by")
    search_fields = ("user__username", "reason")
    autocomplete_fields = ("user",)
    fields = ("user", "reason")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("user",) if obj is not None else ()

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)

        class SuspensionForm(form):  # type: ignore[valid-type,misc]  # a class made by modelform_factory
            def clean_user(self) -> Any:
                user = self.cleaned_data.get("user")
                if user is not None and user.pk == request.user.pk:
                    raise ValidationError("You cannot suspend yourself.")
                return user

        return SuspensionForm

    def save_model(self, request: HttpRequest, obj: Suspension, form: Any, change: bool) -> None:
        suspension = user_suspend(user_id=obj.user_id, reason=obj.reason, by=request_user(request))
        obj._state.adding = False
        obj.created_at, obj.created_by_id = suspension.created_at, suspension.created_by_id

    def delete_model(self, request: HttpRequest, obj: Suspension) -> None:
        user_unsuspend(user_id=obj.user_id, by=request_user(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Suspension]) -> None:
        for user_id in list(queryset.values_list("user_id", flat=True)):
            user_unsuspend(user_id=user_id, by=request_user(request))

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [path("top-spenders/", wrap(self.top_spenders_view), name="limits_top_spenders"),
                path("top-spenders/suspend/", wrap(self.suspend_view), name="limits_suspend"),
                path("top-spenders/unsuspend/", wrap(self.unsuspend_view), name="limits_unsuspend"),
                *super().get_urls()]

    def top_spenders_view(self, request: HttpRequest) -> HttpResponse:
        _require(request, SEE_SPEND)
        context = {**self.admin_site.each_context(request), "title": "Top spenders this month",
                   "opts": self.model._meta, "rows": top_spenders(),
                   "can_suspend": request.user.has_perm(SUSPEND), "can_unsuspend": request.user.has_perm(UNSUSPEND)}
        return TemplateResponse(request, "admin/limits/top_spenders.html", context)

    @staticmethod
    def _user_id(request: HttpRequest) -> str:
        user_id = request.POST.get("user", "")
        if not user_id.isdigit():
            raise PermissionDenied  # a forged form, not a user's mistake
        return user_id

    @staticmethod
    def _back() -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:limits_top_spenders"))

    @method_decorator(require_POST)
    def suspend_view(self, request: HttpRequest) -> HttpResponse:
        _require(request, SUSPEND)
        try:
            user_suspend(user_id=self._user_id(request), reason=request.POST.get("reason", ""),
                         by=request_user(request))
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, "Suspended; their queued and running submissions were cancelled.")
        return self._back()

    @method_decorator(require_POST)
    def unsuspend_view(self, request: HttpRequest) -> HttpResponse:
        _require(request, UNSUSPEND)
        lifted = user_unsuspend(user_id=self._user_id(request), by=request_user(request))
        messages.success(request, "Suspension lifted." if lifted else "That user was not suspended.")
        return self._back()

"""API tokens in the admin: staff see who holds which token (its first characters only) and can
revoke a leaked one by deleting it. Neither keys nor digests are shown."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from accounts.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "created_at", "expires_at", "last_used_at")
    list_select_related = ("user",)
    search_fields = ("prefix", "user__username")
    fields = ("prefix", "user", "created_at", "expires_at", "last_used_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a key is made by its user, who is the only one to see it

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

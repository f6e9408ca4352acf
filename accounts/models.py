"""API tokens, stored as digests: the database never holds a usable key."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """One API token of a user (a user may hold several: one per machine the CLI logged in on).

    A key is 160 random bits, so a plain SHA-256 of it is as good as a slow password hash and lets a
    request find its token with one indexed lookup. The first characters stay in clear so people can
    tell their tokens apart. `password_stamp` binds the token to the password it was issued under: a
    new password (changed, reset, set by staff) revokes every token made before it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    prefix = models.CharField(max_length=8, help_text="The key's first characters, to recognise it.")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the key (hex).")
    password_stamp = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: never.")
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user.get_username()})"

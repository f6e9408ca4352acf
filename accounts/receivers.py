"""A new password revokes the API tokens issued under the old one, however it was set."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.tokens import tokens_revoke_stale


@receiver(post_save, sender=get_user_model(), dispatch_uid="accounts-revoke-tokens-on-password-change")
def revoke_tokens_on_password_change(sender: Any, instance: Any, created: bool, update_fields: Any,
                                     **kwargs: Any) -> None:
    # A login saves only last_login: no query then.
    if not created and (update_fields is None or "password" in update_fields):
        tokens_revoke_stale(user=instance)

"""DRF authentication with our API tokens (`Authorization: Token <key>`, as DRF's own scheme)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed


class ApiTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[User, Any]:
        # Imported here: DRF imports this class while rest_framework.views loads, before the
        # modules accounts.tokens needs (core.exceptions imports rest_framework.views).
        from accounts.tokens import token_user

        user = token_user(key=key)
        if user is None:
            raise AuthenticationFailed("Invalid, expired or revoked token.")
        return user, None

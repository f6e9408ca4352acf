"""The authenticated user of a request, typed (views behind login / IsAuthenticated only)."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated


def request_user(request: Any) -> User:
    user = request.user
    if not user.is_authenticated:
        raise NotAuthenticated()
    return cast(User, user)

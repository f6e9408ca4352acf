"""API tokens: the one place that issues, lists, revokes and checks them. The login API, the
account page, DRF's authentication and the event stream's authentication all come here.

Only a digest of each key is stored (accounts.models.ApiToken): a key is shown once, when it is made.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser, User
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import ApiToken
from core.exceptions import ConflictError
from core.prepared_query import PreparedQuery

MAX_TOKENS_PER_USER = 20
PREFIX_LENGTH = 8
# last_used_at is written at most this often per token: a request must not always cost a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # the only time the key exists outside the client


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def password_stamp(user: AbstractBaseUser) -> str:
    """Changes whenever the password does (its hash is salted anew each time)."""
    return hashlib.sha256(f"hipjudge-api-token:{user.password}".encode()).hexdigest()


def token_list(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens that still work, newest first."""
    now = timezone.now()
    return ApiToken.objects.filter(user_id=user.pk, password_stamp=password_stamp(user)).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now))


def token_create(*, user: User, expires_at: datetime | None = None) -> IssuedToken:
    """A new token. Dead ones (expired, or from before a password change) are cleared first; a user
    holds at most MAX_TOKENS_PER_USER working tokens."""
    ApiToken.objects.filter(user_id=user.pk).exclude(pk__in=token_list(user=user).values("pk")).delete()
    if token_list(user=user).count() >= MAX_TOKENS_PER_USER:
        raise ConflictError(f"You already have {MAX_TOKENS_PER_USER} API tokens; revoke one on your account page "
                            "first.", {"limit": MAX_TOKENS_PER_USER})
    key = secrets.token_hex(20)
    token = ApiToken.objects.create(user=user, prefix=key[:PREFIX_LENGTH], digest=key_digest(key),
                                    password_stamp=password_stamp(user), expires_at=expires_at)
    return IssuedToken(token=token, key=key)


def token_revoke(*, user: User, token_id: uuid.UUID | str) -> bool:
    """Delete one of the user's tokens; False when there is no such token of theirs."""
    try:
        uuid.UUID(str(token_id))
    except ValueError:
        return False
    deleted, _ = ApiToken.objects.filter(user_id=user.pk, pk=token_id).delete()
    return bool(deleted)


def tokens_revoke_stale(*, user: AbstractBaseUser) -> int:
    """Delete the tokens issued under an earlier password (called when a user is saved)."""
    deleted, _ = ApiToken.objects.filter(user_id=user.pk).exclude(password_stamp=password_stamp(user)).delete()
    return deleted


# Every API request looks its token up: the query is compiled once per process (core.prepared_query).
_token_by_digest: PreparedQuery[ApiToken] = PreparedQuery(
    lambda digest: ApiToken.objects.select_related("user").filter(digest=digest)[:1], digest=str)


def token_user(*, key: str) -> User | None:
    """The active user whose working token this is, or None. Records when the token was last used."""
    if not key or len(key) > 200:
        return None
    found = _token_by_digest.fetch(digest=key_digest(key))
    token = found[0] if found else None
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if (token.expires_at is not None and token.expires_at <= now) or not secrets.compare_digest(
            token.password_stamp, password_stamp(token.user)):
        return None
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user

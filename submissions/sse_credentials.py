"""Which open event streams lost their credentials: for every stream of a web process at once.

A stream is opened with an API token or a browser session. The hub asks here every
HIPJUDGE_SSE_REVOKE_CHECK seconds (at most 2) whether each still works, in two queries whatever the
number of streams: a revoked or expired token, one from before a password change or of a user made
inactive, and a session that was signed out or expired, end their streams within that interval.
(Each stream also checks itself in full, less often: submissions.sse._still_allowed.)
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import DatabaseError
from django.http import HttpRequest
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import key_digest, password_stamp, token_user
from submissions.selectors import submission_get

# The engines that keep sessions in the django_session table, where signing out deletes the row.
TABLE_SESSION_ENGINES = {"django.contrib.sessions.backends.db", "django.contrib.sessions.backends.cached_db"}


@dataclass(frozen=True)
class Viewer:
    """Who watches a stream and how they proved it: a token's key, else their session's key."""

    user_id: int
    staff: bool
    token: str = ""
    session_key: str = ""


def credentials_gone(viewers: Collection[Viewer]) -> set[Viewer]:
    """The viewers whose token or session no longer signs their user in."""
    gone = _tokens_gone([v for v in viewers if v.token])
    if settings.SESSION_ENGINE in TABLE_SESSION_ENGINES:
        gone |= _sessions_gone([v for v in viewers if not v.token and v.session_key])
    return gone


def _tokens_gone(viewers: list[Viewer]) -> set[Viewer]:
    if not viewers:
        return set()
    by_digest = {key_digest(v.token): v for v in viewers}
    now = timezone.now()
    working: set[str] = set()
    for digest, user_id, expires_at, stamp, password, active in ApiToken.objects.filter(
            digest__in=list(by_digest)).values_list("digest", "user_id", "expires_at", "password_stamp",
                                                   "user__password", "user__is_active"):
        if (active and user_id == by_digest[digest].user_id and (expires_at is None or expires_at > now)
                and secrets.compare_digest(stamp, password_stamp(User(password=password)))):
            working.add(digest)
    return {viewer for digest, viewer in by_digest.items() if digest not in working}


def _sessions_gone(viewers: list[Viewer]) -> set[Viewer]:
    if not viewers:
        return set()
    keys = {v.session_key for v in viewers}
    alive = set(Session.objects.filter(session_key__in=list(keys), expire_date__gt=timezone.now())
                .values_list("session_key", flat=True))
    return {v for v in viewers if v.session_key not in alive}


def _session_user(session_key: str) -> Any:
    """The user a session still signs in (a fresh read of the session: not the request's copy)."""
    holder = HttpRequest()
    holder.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return get_user(holder)  # type: ignore[arg-type]


def viewer_still_allowed(viewer: Viewer, submission_id: uuid.UUID) -> bool | None:
    """The full check of one stream: do its credentials still sign in its user, who may still see
    the submission? None when the database does not answer (the stream goes on: the next check decides)."""
    try:
        user = token_user(key=viewer.token) if viewer.token else _session_user(viewer.session_key)
        return (user is not None and user.is_authenticated and user.pk == viewer.user_id
                and submission_get(user=user, submission_id=submission_id) is not None)
    except DatabaseError:
        return None

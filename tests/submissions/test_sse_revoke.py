"""Issue 40: a revoked token kept its event stream for up to 30 s (each stream checked itself every
HIPJUDGE_SSE_RECHECK seconds). The hub now checks every open stream's token or session at once every
HIPJUDGE_SSE_REVOKE_CHECK seconds (1 by default, at most 2); the clock is stepped, not waited for."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore

from accounts.tokens import token_create, token_revoke
from submissions import sse
from submissions.sse_credentials import Viewer, credentials_gone
from tests.conftest import django_process, run_coroutine
from tests.support.clock import stepped_clock


@pytest.fixture
def quiet_fetch(monkeypatch: Any) -> None:
    """The hub's event read is not what is tested: nothing new, the submission still running."""
    monkeypatch.setattr(sse, "_fetch", lambda cursors: ({sid: ("RUNNING", 0) for sid in cursors}, {}))


@pytest.mark.django_db(transaction=True)  # the hub reads on its own thread's connection
def test_a_revoked_tokens_stream_is_ended_at_the_next_check_within_two_seconds(
        owner: Any, settings: Any, quiet_fetch: None) -> None:
    settings.HIPJUDGE_SSE_REVOKE_CHECK = 1.0
    issued, kept = token_create(user=owner), token_create(user=owner)
    hub = sse.EventHub()
    revoked = sse.Subscription(uuid.uuid4(), 0, Viewer(user_id=owner.pk, staff=False, token=issued.key))
    other = sse.Subscription(uuid.uuid4(), 0, Viewer(user_id=owner.pk, staff=False, token=kept.key))
    hub._subs |= {revoked, other}
    with stepped_clock() as clock:
        run_coroutine(hub._tick())  # checked: both tokens work
        assert not revoked.revoked and not other.revoked
        token_revoke(user=owner, token_id=issued.token.pk)
        clock.advance(0.5)
        run_coroutine(hub._tick())  # within the interval: no check yet
        assert not revoked.revoked
        clock.advance(0.5)
        run_coroutine(hub._tick())
    assert revoked.revoked and revoked.wake.is_set()
    assert not other.revoked


@pytest.mark.django_db
def test_tokens_and_sessions_that_stopped_working_are_found_in_two_queries(
        owner: Any, other_user: Any, django_assert_num_queries: Any) -> None:
    working, revoked, foreign = token_create(user=owner), token_create(user=owner), token_create(user=other_user)
    token_revoke(user=owner, token_id=revoked.token.pk)
    live, ended = SessionStore(), SessionStore()
    live.create()
    ended.create()
    ended.delete()
    viewers = [Viewer(owner.pk, False, token=working.key), Viewer(owner.pk, False, token=revoked.key),
               Viewer(owner.pk, False, token=foreign.key),  # another user's token: not this stream's
               Viewer(owner.pk, False, session_key=live.session_key or ""),
               Viewer(owner.pk, False, session_key=ended.session_key or "")]
    with django_assert_num_queries(2):
        gone = credentials_gone(viewers)
    assert gone == {viewers[1], viewers[2], viewers[4]}
    owner.set_password("a new one")
    owner.save()
    assert viewers[0] in credentials_gone(viewers[:1])  # a token from before the password change


def test_the_check_interval_cannot_be_set_above_two_seconds() -> None:
    result = django_process("", HIPJUDGE_SSE_REVOKE_CHECK="5")
    assert result.returncode != 0
    assert "HIPJUDGE_SSE_REVOKE_CHECK" in result.stderr

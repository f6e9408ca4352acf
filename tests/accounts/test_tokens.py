"""The token lifecycle: stored as a digest, shown once, several per user, optional expiry, revoked
one by one or all at once by a new password, last use recorded; DRF keys of before keep working."""

from __future__ import annotations

import importlib
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import MAX_TOKENS_PER_USER, key_digest, token_create, token_list, token_revoke, token_user
from core.exceptions import ConflictError

pytestmark = pytest.mark.django_db


def test_only_a_digest_and_a_prefix_are_stored(owner: Any) -> None:
    issued = token_create(user=owner)
    row = ApiToken.objects.get()
    assert len(issued.key) == 40
    assert row.prefix == issued.key[:8]
    assert row.digest == key_digest(issued.key)
    assert issued.key not in str(list(ApiToken.objects.values()))
    assert token_user(key=issued.key) == owner


def test_each_token_works_until_it_is_revoked(owner: Any, other_user: Any) -> None:
    first, second = token_create(user=owner), token_create(user=owner)
    assert token_user(key=first.key) == owner
    assert token_user(key=second.key) == owner
    assert token_revoke(user=other_user, token_id=first.token.pk) is False  # not theirs
    assert token_revoke(user=owner, token_id=first.token.pk) is True
    assert token_user(key=first.key) is None
    assert token_user(key=second.key) == owner
    assert token_revoke(user=owner, token_id="not-a-uuid") is False


def test_an_expired_token_is_refused(owner: Any) -> None:
    issued = token_create(user=owner, expires_at=timezone.now() + timedelta(hours=1))
    assert token_user(key=issued.key) == owner
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert token_user(key=issued.key) is None
    assert not token_list(user=owner).exists()


@pytest.mark.parametrize("how", ["set_password", "queryset_update"])
def test_a_new_password_revokes_every_token(owner: Any, how: str) -> None:
    issued = token_create(user=owner)
    if how == "set_password":  # what the password change, the password reset and the admin do
        owner.set_password("another long passphrase")
        owner.save()
        assert not ApiToken.objects.exists()
    else:  # even a write that skips the signals
        type(owner).objects.filter(pk=owner.pk).update(password="md5$other$hash")
    assert token_user(key=issued.key) is None
    fresh = token_create(user=type(owner).objects.get(pk=owner.pk))
    assert token_user(key=fresh.key) == owner


def test_a_login_keeps_the_tokens(owner: Any, client: Any) -> None:
    issued = token_create(user=owner)
    assert client.login(username="owner", password="correct horse battery")
    assert token_user(key=issued.key) == owner


def test_the_token_of_an_inactive_user_is_refused(owner: Any) -> None:
    issued = token_create(user=owner)
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    assert token_user(key=issued.key) is None


def test_last_use_is_recorded_at_most_once_a_minute(owner: Any, django_assert_num_queries: Any) -> None:
    issued = token_create(user=owner)
    token_user(key=issued.key)
    first = ApiToken.objects.get().last_used_at
    assert first is not None
    with django_assert_num_queries(1):  # the lookup only: no write within the minute
        token_user(key=issued.key)
    assert ApiToken.objects.get().last_used_at == first


def test_a_user_holds_a_bounded_number_of_tokens(owner: Any) -> None:
    for _ in range(MAX_TOKENS_PER_USER):
        token_create(user=owner)
    with pytest.raises(ConflictError, match="revoke one"):
        token_create(user=owner)
    ApiToken.objects.filter(pk=ApiToken.objects.first().pk).update(expires_at=timezone.now())
    token_create(user=owner)  # a dead token does not count (and is cleared)
    assert ApiToken.objects.count() == MAX_TOKENS_PER_USER


def test_drf_keys_of_before_are_hashed_and_keep_working(owner: Any) -> None:
    """accounts/migrations/0002 on a database that still has DRF's authtoken table."""
    old_key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamp NOT NULL, "
                       "user_id integer NOT NULL)")
        cursor.execute("INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
                       [old_key, timezone.now() - timedelta(days=3), owner.pk])
    migration = importlib.import_module("accounts.migrations.0002_hash_drf_tokens")
    migration.hash_drf_tokens(apps, SimpleNamespace(connection=connection))
    assert "authtoken_token" not in connection.introspection.table_names()
    assert token_user(key=old_key) == owner
    row = ApiToken.objects.get()
    assert row.prefix == old_key[:8]
    assert row.digest != old_key
    assert (timezone.now() - row.created_at).days == 3


def test_the_admin_lists_tokens_without_their_keys(admin_client: Any, owner: Any) -> None:
    issued = token_create(user=owner)
    page = admin_client.get("/admin/accounts/apitoken/").content.decode()
    assert issued.key[:8] in page
    assert issued.key not in page
    assert key_digest(issued.key) not in page
    assert admin_client.get("/admin/authtoken/tokenproxy/").status_code == 404  # DRF's key list is gone

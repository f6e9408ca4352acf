"""core.prepared_query: a query compiled once gives, for every value, what the plain queryset gives
(model instances with their related rows, values, values_list in the order asked), never another
value's rows; a value it cannot be sure of runs the plain queryset; a locking query outside a
transaction is refused as Django refuses it; a changed setting compiles again."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, F, Q, Value
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import token_create
from core.locks import locked
from core.prepared_query import PreparedQuery

pytestmark = pytest.mark.django_db


def tokens_of(digest: str) -> Any:
    return ApiToken.objects.select_related("user").filter(digest=digest)[:1]


def test_each_value_gets_the_rows_the_plain_queryset_gives_and_no_others(owner: Any, other_user: Any,
                                                                          compiles: list[str]) -> None:
    mine, theirs = token_create(user=owner).token, token_create(user=other_user).token
    query: PreparedQuery[ApiToken] = PreparedQuery(tokens_of, digest=str)
    assert query.prepared
    compiled = len(compiles)
    for token in (mine, theirs, mine):
        found = query.fetch(digest=token.digest)
        assert [(t.pk, t.user.username) for t in found] == [(token.pk, token.user.username)]
        # The related row came with it (select_related), not from another query.
        assert found[0]._state.fields_cache["user"].pk == token.user_id
    assert query.fetch(digest="0" * 64) == []
    assert len(compiles) == compiled  # compiled once, when prepared


def test_values_and_annotations_come_in_the_order_asked(owner: Any, other_user: Any, compiles: list[str]) -> None:
    for user in (owner, owner, other_user):
        token_create(user=user)

    def counts(user_id: int, since: Any) -> Any:
        # Annotations named before a field: Django selects fields first and reorders the tuples.
        return (get_user_model().objects.filter(pk=user_id).values("pk")
                .annotate(recent=Count("api_tokens", filter=Q(api_tokens__created_at__gte=since)),
                          doubled=F("pk") * Value(2))
                .values_list("recent", "doubled", "username"))

    def as_dicts(user_id: int) -> Any:
        return get_user_model().objects.filter(pk=user_id).values("username", "is_staff").order_by("pk")[:1]

    listed = PreparedQuery(counts, user_id=int, since=datetime)
    dicts: PreparedQuery[dict[str, Any]] = PreparedQuery(as_dicts, user_id=int)
    assert listed.prepared and dicts.prepared  # the datetime too, through the backend's adapter
    compiled = len(compiles)
    an_hour_ago, later = timezone.now() - timedelta(hours=1), timezone.now() + timedelta(hours=1)
    for user in (owner, other_user):
        for since in (an_hour_ago, later):
            assert listed.fetch(user_id=user.pk, since=since) == list(counts(user.pk, since))
        assert dicts.fetch(user_id=user.pk) == [{"username": user.username, "is_staff": False}]
    assert len(compiles) == compiled + 4  # only the plain querysets compared with


def test_a_value_of_another_type_runs_the_plain_queryset(owner: Any, compiles: list[str]) -> None:
    query: PreparedQuery[Any] = PreparedQuery(
        lambda user_id: get_user_model().objects.filter(pk=user_id).values_list("username", flat=True), user_id=int)
    assert query.fetch(user_id=owner.pk) == ["owner"]
    compiled = len(compiles)
    assert query.fetch(user_id=str(owner.pk)) == ["owner"]  # compiled anew, as Django would
    assert query.fetch(user_id=True) == list(get_user_model().objects.filter(pk=True).values_list("username",
                                                                                                     flat=True))
    assert len(compiles) > compiled
    with pytest.raises(TypeError):
        query.fetch(user=owner.pk)


def test_a_marker_that_does_not_reach_the_parameters_as_it_is_leaves_the_query_plain(owner: Any) -> None:
    # A lookup that changes the value (icontains wraps it in %...%): the compiled SQL cannot take another.
    query: PreparedQuery[Any] = PreparedQuery(
        lambda name: get_user_model().objects.filter(username__icontains=name).values_list("pk", flat=True), name=str)
    assert not query.prepared
    assert query.fetch(name="WNE") == [owner.pk]


def test_a_locking_query_outside_a_transaction_is_refused(owner: Any, monkeypatch: Any) -> None:
    query: PreparedQuery[Any] = PreparedQuery(
        lambda user_id: locked(get_user_model().objects.filter(pk=user_id)).values_list("pk", flat=True),
        user_id=int)
    assert query.fetch(user_id=owner.pk) == [owner.pk]  # in the test's transaction
    # As on PostgreSQL, which has FOR UPDATE, with no transaction open: Django's own refusal.
    monkeypatch.setattr(connection.features, "has_select_for_update", True)
    monkeypatch.setattr(connection, "get_autocommit", lambda: True)
    with pytest.raises(TransactionManagementError):
        query.fetch(user_id=owner.pk)


def test_a_changed_setting_compiles_the_query_again(owner: Any, settings: Any, compiles: list[str]) -> None:
    query: PreparedQuery[Any] = PreparedQuery(
        lambda user_id: get_user_model().objects.filter(pk=user_id).values_list("pk", flat=True), user_id=int)
    query.fetch(user_id=owner.pk)
    compiled = len(compiles)
    settings.HIPJUDGE_DEFAULT_POOL = "elsewhere"
    assert query.fetch(user_id=owner.pk) == [owner.pk]
    assert len(compiles) == compiled + 1

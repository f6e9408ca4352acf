"""Refused submissions store nothing: a flood of refused POSTs with 64 KiB
sources cannot grow the database. bench/refusals.py measures the same in bytes."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.db import connection

from tests.conftest import read_source

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")
URL = "/api/v1/submissions"


def rows_per_table() -> dict[str, int]:
    return {model._meta.db_table: model._default_manager.count() for model in apps.get_models()}


def sqlite_pages() -> int | None:
    if connection.vendor != "sqlite":
        return None
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA page_count")
        return int(cursor.fetchone()[0])


def test_100_refused_posts_with_64_kib_sources_add_nothing_to_the_database(owner: Any, api_as: Any) -> None:
    client = api_as(owner)
    for _ in range(2):  # the concurrent quota (2) is full
        assert client.post(URL, {"problem": "vector-add", "language": "cpp", "source": read_source("cpp.cpp")},
                           format="json").status_code == 201
    big = {"problem": "vector-add", "language": "cpp", "source": "int x;" + "/" * (64 * 1024 - 6)}
    before, pages = rows_per_table(), sqlite_pages()
    # bench/refusals.py sends 500 (the figure in docs/benchmarks.md); one stored refusal would show here as a row.
    answers = {client.post(URL, big, format="json").status_code for _ in range(100)}
    assert answers == {429}
    assert rows_per_table() == before
    assert sqlite_pages() == pages

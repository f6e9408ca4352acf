"""Rows locked as mutexes (a pool while it decides to start a VM, a user while a submission passes
the caps, a submission while its events are numbered), the same way everywhere.

PostgreSQL checks a foreign key when the inserting transaction commits (Django declares them
DEFERRABLE INITIALLY DEFERRED) by taking FOR KEY SHARE on the row referred to. FOR UPDATE blocks
that check; FOR NO KEY UPDATE does not, and still excludes every other locker of the row. With FOR
UPDATE, a worker holding a pool's row and waiting for a user's row deadlocked with a POST
/api/v1/submissions that held that user's row and, at COMMIT, checked the new submission's pool
(seen on PostgreSQL on 2026-11-27: the request answered 503). None of our locks changes a key.
"""

from __future__ import annotations

from typing import TypeVar

from django.db import connections
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def locked(queryset: QuerySet[M], *, skip_locked: bool = False) -> QuerySet[M]:
    """`queryset` locking its rows until the transaction ends (SELECT ... FOR NO KEY UPDATE on
    PostgreSQL); `skip_locked` passes over rows another transaction holds where the database can.
    SQLite locks the whole database for a writer and ignores both."""
    features = connections[queryset.db].features
    return queryset.select_for_update(no_key=features.has_select_for_no_key_update,
                                      skip_locked=skip_locked and features.has_select_for_update_skip_locked)

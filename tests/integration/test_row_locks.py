"""A lock we take as a mutex never makes another transaction's COMMIT wait (core/locks.py).

PostgreSQL checks a new row's foreign keys at COMMIT with FOR KEY SHARE on the rows referred to.
Under FOR UPDATE, a POST /api/v1/submissions waited there for a worker holding the pool's row, and
the two deadlocked when the worker then waited for the user's row (a 503 beside the fault test).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, transaction

from fleets.services import vm_acquire
from submissions.models import Mode, Submission
from submissions.services import submission_create
from tests.conftest import read_source

pytestmark = [
    pytest.mark.integration,  # the PostgreSQL pass of scripts/test.sh runs `-m integration`
    pytest.mark.skipif(not settings.IS_POSTGRES, reason="needs PostgreSQL (set DATABASE_URL=postgres://...): "
                       "SQLite has no row locks"),
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("problems_loaded"),
]


@contextmanager
def held_by_another_transaction(take_locks: Callable[[], Any]) -> Iterator[None]:
    """Run `take_locks` in a transaction of another thread (its own connection), kept open meanwhile."""
    ready, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold() -> None:
        try:
            with transaction.atomic():
                take_locks()
                ready.set()
                release.wait(60)
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
            ready.set()
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert ready.wait(30), "the other transaction never took its locks"
    try:
        assert not errors, errors
        yield
    finally:
        release.set()
        thread.join(30)
    assert not errors, errors


def test_a_submission_to_a_pool_commits_while_a_dispatcher_holds_the_pools_row(owner: Any, local_pool: Any) -> None:
    # vm_acquire finds no WARM VM, locks the pool's row and reserves a new VM for the job.
    with held_by_another_transaction(lambda: vm_acquire(pool=local_pool, job_ref="job-holding-the-pool", queued=1)):
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '10s'")  # under FOR UPDATE the COMMIT below waited here, then failed
        try:
            submission = submission_create(user=owner, problem="vector-add", language="cpp",
                                           source=read_source("cpp.cpp"), mode=Mode.CHECK, pool_name="local")
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = 0")
    assert Submission.objects.filter(pk=submission.pk, pool=local_pool).exists()

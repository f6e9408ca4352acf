"""Issue 40: under load a healthy database was reported down (1 of 3,747 POSTs: 503 "the database is
not answering"): a request that waited the pool's timeout while every pooled connection served other
requests got the same PoolTimeout as one whose database was away. A pool that never failed to
connect is busy: the request waits on (HIPJUDGE_DB_POOL_BUSY_WAIT), then gets 503 saying so; only a
pool that fails to connect says the database is not answering."""

from __future__ import annotations

import os
import socket
import threading
from typing import Any

import pytest
from django.db import OperationalError
from psycopg_pool import ConnectionPool, PoolTimeout

from core.db_pool import PoolBusy, patient_getconn

# psycopg_pool's own getconn (core's app config has wrapped it with the settings' wait)
GETCONN = getattr(ConnectionPool.getconn, "__wrapped__", ConnectionPool.getconn)
PG_SERVER = os.environ.get("HIPJUDGE_TEST_PG_URL", "postgres://postgres@127.0.0.1:5432/test").rsplit("/", 1)[0]


def pg_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1):
            return True
    except OSError:
        return False


class Phase:
    """The busy wait's length, and an event set when a request starts it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = threading.Event()

    def __call__(self) -> float:
        self.started.set()
        return self.seconds


def pool_at(conninfo: str) -> ConnectionPool:
    pool = ConnectionPool(conninfo, min_size=1, max_size=1, timeout=0.3, open=False)
    pool.open(wait=False)
    return pool


needs_pg = pytest.mark.skipif(not pg_answers(), reason="PostgreSQL does not answer on 127.0.0.1:5432")


@needs_pg
def test_a_request_waits_on_while_the_pool_is_only_busy_and_gets_the_connection_freed() -> None:
    pool = pool_at(f"{PG_SERVER}/postgres")
    try:
        held = pool.getconn(timeout=30)
        phase = Phase(60)
        getconn = patient_getconn(GETCONN, phase)
        got: list[Any] = []
        waiter = threading.Thread(target=lambda: got.append(getconn(pool)))
        waiter.start()
        assert phase.started.wait(30)  # the pool's own timeout passed: plain psycopg_pool failed here
        pool.putconn(held)
        waiter.join(30)
        assert got and got[0] is held
        pool.putconn(got[0])
    finally:
        pool.close()


@needs_pg
def test_a_pool_busy_for_the_whole_wait_says_busy() -> None:
    pool = pool_at(f"{PG_SERVER}/postgres")
    try:
        held = pool.getconn(timeout=30)
        with pytest.raises(PoolBusy):
            patient_getconn(GETCONN, Phase(0.2))(pool)
        pool.putconn(held)
    finally:
        pool.close()


def test_a_pool_that_cannot_connect_says_the_database_is_away() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there: every attempt is refused
    pool = pool_at(f"postgres://nobody@127.0.0.1:{port}/none?connect_timeout=2")
    try:
        with pytest.raises(PoolTimeout) as raised:
            patient_getconn(GETCONN, Phase(60))(pool)
        assert not isinstance(raised.value, PoolBusy)
    finally:
        pool.close(timeout=1)


@pytest.mark.django_db
@pytest.mark.parametrize(("cause", "message", "said"), [
    (PoolBusy("in use"), "The server is busy with other requests", "pool_busy"),
    (PoolTimeout("couldn't get a connection"), "The database is not answering", "database_down"),
], ids=["pool-busy", "pool-cannot-connect"])
def test_the_answer_says_which_it_was(monkeypatch: Any, owner: Any, api_as: Any, cause: Exception, message: str,
                                      said: str) -> None:
    def fails(*args: Any, **kwargs: Any) -> Any:
        error = OperationalError(str(cause))
        error.__cause__ = cause  # as Django wraps the pool's error
        raise error

    monkeypatch.setattr("web.api.problems.problems_filtered", fails)
    response = api_as(owner).get("/api/v1/problems")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["message"].startswith(message)
    assert response.json()["extra"]["cause"] == said


@needs_pg
def test_a_connection_handed_back_a_moment_ago_is_lent_without_a_check(monkeypatch: Any) -> None:
    """Django's pool checks every connection it lends (an empty query: a round trip per request);
    one that served a request within RECENT_RETURN_S is lent as it is, and any other is checked."""
    import core.db_pool
    from core.db_pool import check_unless_recent

    checked: list[Any] = []
    real_check = getattr(ConnectionPool.check_connection, "__wrapped__", ConnectionPool.check_connection)

    def spy(conn: Any) -> None:
        checked.append(conn)
        real_check(conn)

    pool = ConnectionPool(f"{PG_SERVER}/postgres", min_size=1, max_size=1, timeout=5, open=False,
                          check=check_unless_recent(spy))
    pool.open(wait=True)
    try:
        first = pool.getconn()
        assert checked == [first]  # never handed back yet: checked
        pool.putconn(first)
        again = pool.getconn()
        assert again is first and checked == [first]  # handed back just now: not checked
        pool.putconn(again)
        monkeypatch.setattr(core.db_pool, "RECENT_RETURN_S", 0.0)
        assert pool.getconn() is first and len(checked) == 2  # handed back longer ago: checked
    finally:
        pool.close()


@needs_pg
def test_a_connection_that_died_while_idle_is_replaced_by_the_check(monkeypatch: Any) -> None:
    import core.db_pool
    from core.db_pool import check_unless_recent

    real_check = getattr(ConnectionPool.check_connection, "__wrapped__", ConnectionPool.check_connection)
    pool = ConnectionPool(f"{PG_SERVER}/postgres", min_size=1, max_size=1, timeout=5, open=False,
                          check=check_unless_recent(real_check))
    pool.open(wait=True)
    try:
        conn = pool.getconn()
        pid = conn.info.backend_pid
        pool.putconn(conn)
        monkeypatch.setattr(core.db_pool, "RECENT_RETURN_S", 0.0)
        import psycopg

        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        fresh = pool.getconn()
        assert fresh.info.backend_pid != pid
        assert fresh.execute("SELECT 1").fetchone() == (1,)
        pool.putconn(fresh)
    finally:
        pool.close()


def test_djangos_pool_is_built_with_the_skipping_check() -> None:
    """Django passes ConnectionPool.check_connection when it builds its pool: core's app config has
    replaced it (once, however often it runs)."""
    from core.db_pool import pool_checks_only_long_idle_connections

    pool_checks_only_long_idle_connections()
    check = ConnectionPool.check_connection
    assert check.__wrapped__.__qualname__ == "ConnectionPool.check_connection"  # type: ignore[attr-defined]
    assert not hasattr(check.__wrapped__, "__wrapped__")  # type: ignore[attr-defined]  (wrapped once)

"""The web processes' PostgreSQL pool (psycopg_pool): it tries again every second while the database
is away, and it tells a busy pool from a database that is away.

Reconnecting: psycopg_pool retries a failed connection with exponential backoff (1, 2, 4, 8, 16 s,
...): after an outage of 20 s the next attempt could be 16 s after the database was back, and every
request waited for it (a fault run saw /readyz fail 9 and 23 s after the database's return). The
backoff factor is a class attribute of psycopg_pool's AttemptWithBackoff, which Django's pool uses
without a setting for it; a factor of 1 keeps its first delay (1 s, with jitter) for every attempt.
A web process makes one connection attempt a second during an outage: nothing a database notices.

Busy or away: a request that waits HIPJUDGE_DB_POOL_TIMEOUT for a connection gets psycopg_pool's
PoolTimeout whether the database is away or every connection of the pool is in use by other
requests, and the first was all anyone was told: under load (50 clients on 2 processes) a healthy
database was reported "not answering". A wait that saw no failed connection attempt of the pool is
busyness: the request waits on, up to HIPJUDGE_DB_POOL_BUSY_WAIT seconds more, and then fails with
PoolBusy (answered as 503 "busy", ops.middleware). As soon as the pool fails to connect, the wait
ends with PoolTimeout (503 "not answering"), so an outage still fails a request within seconds.

Checking: Django's pool (CONN_HEALTH_CHECKS) sends an empty query on every connection it lends,
a round trip per request that the problem list's two queries made three. A connection handed back
less than RECENT_RETURN_S ago served a request then, and under load every connection is one of
those: it is lent without the check. What the check would have caught in that second fails the
request's first query instead (an OperationalError: 503 "not answering", as any query in an
outage), and the broken connection leaves the pool when it comes back: a database that went away
within the second, or a connection the server ended while it was idle for under a second
(pg_terminate_backend, idle_session_timeout, a proxy's failover), one request per such connection.
A restart takes longer than a second, so every connection from before it is checked again.
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Callable
from typing import Any

RETRY_FACTOR = 1.0
RECENT_RETURN_S = 1.0  # a connection handed back this recently is lent without a check
BUSY_STEP_S = 0.5  # how often a busy wait looks again for failed connection attempts


def pool_retries_every_second() -> None:
    try:
        from psycopg_pool.base import AttemptWithBackoff
    except ImportError:  # SQLite only: no pool
        return
    AttemptWithBackoff.DELAY_BACKOFF = RETRY_FACTOR


try:
    from psycopg_pool import PoolTimeout
except ImportError:  # SQLite only: nothing raises it
    class PoolTimeout(Exception):  # type: ignore[no-redef]
        pass


class PoolBusy(PoolTimeout):
    """Every connection of the pool stayed in use for the whole wait, and the pool never failed to
    connect: the database answers, this process has more requests than connections."""


def _connection_errors(pool: Any) -> int:
    return int(pool.get_stats().get("connections_errors", 0))


def patient_getconn(getconn: Callable[..., Any], busy_wait_s: Callable[[], float]) -> Callable[..., Any]:
    """psycopg_pool's getconn, waiting on while the pool is only busy (see the module's docstring)."""

    @functools.wraps(getconn)
    def getconn_patiently(pool: Any, timeout: float | None = None) -> Any:
        errors = _connection_errors(pool)
        try:
            return getconn(pool, timeout)
        except PoolBusy:
            raise
        except PoolTimeout:
            if _connection_errors(pool) != errors:
                raise  # the pool could not connect: the database is away
        deadline = time.monotonic() + busy_wait_s()
        while (left := deadline - time.monotonic()) > 0:
            try:
                return getconn(pool, min(BUSY_STEP_S, left))
            except PoolTimeout:
                if _connection_errors(pool) != errors:
                    raise
        raise PoolBusy(f"every connection of the pool stayed in use (waited {busy_wait_s():g} s more)")

    return getconn_patiently


def pool_waits_while_busy(busy_wait_s: Callable[[], float]) -> None:
    try:
        from psycopg_pool import ConnectionPool
    except ImportError:  # SQLite only: no pool
        return
    original = getattr(ConnectionPool.getconn, "__wrapped__", ConnectionPool.getconn)  # once, however often called
    ConnectionPool.getconn = patient_getconn(original, busy_wait_s)  # type: ignore[method-assign]


_returned_at: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def check_unless_recent(check: Callable[[Any], None]) -> Callable[[Any], None]:
    """psycopg_pool's connection check, skipped for a connection handed back within RECENT_RETURN_S
    and idle (see the module's docstring)."""

    from psycopg.pq import TransactionStatus

    @functools.wraps(check)
    def check_if_idle_long(conn: Any) -> None:
        returned = _returned_at.pop(conn, None)
        if (returned is not None and time.monotonic() - returned < RECENT_RETURN_S
                and conn.info.transaction_status == TransactionStatus.IDLE):
            return
        check(conn)

    return check_if_idle_long


def noting_return(putconn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(putconn)
    def putconn_noted(pool: Any, conn: Any) -> Any:
        if not conn.closed:
            _returned_at[conn] = time.monotonic()
        return putconn(pool, conn)

    return putconn_noted


def pool_checks_only_long_idle_connections() -> None:
    """Django builds its pool with check=ConnectionPool.check_connection: replaced before any pool exists."""
    try:
        from psycopg_pool import ConnectionPool
    except ImportError:  # SQLite only: no pool
        return
    check = getattr(ConnectionPool.check_connection, "__wrapped__", ConnectionPool.check_connection)
    ConnectionPool.check_connection = staticmethod(check_unless_recent(check))  # type: ignore[method-assign,assignment]
    putconn = getattr(ConnectionPool.putconn, "__wrapped__", ConnectionPool.putconn)
    ConnectionPool.putconn = noting_return(putconn)  # type: ignore[method-assign]

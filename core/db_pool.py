"""The web processes' PostgreSQL pool (psycopg_pool) tries again every second while the database is
away, so that requests and /readyz are served again about a second after it returns.

psycopg_pool retries a failed connection with exponential backoff (1, 2, 4, 8, 16 s, ...): after an
outage of 20 s the next attempt could be 16 s after the database was back, and every request
waited for it (a fault run saw /readyz fail 9 and 23 s after the database's return). The backoff
factor is a class attribute of psycopg_pool's AttemptWithBackoff, which Django's pool uses without a
setting for it; a factor of 1 keeps its first delay (1 s, with jitter) for every attempt. A web
process makes one connection attempt a second during an outage: nothing a database notices.
"""

from __future__ import annotations

RETRY_FACTOR = 1.0


def pool_retries_every_second() -> None:
    try:
        from psycopg_pool.base import AttemptWithBackoff
    except ImportError:  # SQLite only: no pool
        return
    AttemptWithBackoff.DELAY_BACKOFF = RETRY_FACTOR

"""The one place that hands work to django-q2, so tests can capture it and options stay uniform.

`queue_use` hands tasks to a function of the caller's instead while it is installed: bench/costsim.py
runs them itself, on its simulated clock (core.clock), in the order they were queued.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from django_q.brokers import Broker, get_broker
from django_q.tasks import async_task

log = logging.getLogger(__name__)


@cache
def _shared_broker() -> Broker:
    """One broker per process. django-q2 builds a new one per async_task, which with Redis means a
    new client and TCP connection for every enqueue; a redis-py client is thread-safe and
    reconnects by itself (and after a fork), the ORM broker is stateless. Two threads racing on the
    first call at worst build one broker too many."""
    return get_broker()


_taker: Callable[..., None] | None = None


@contextmanager
def queue_use(taker: Callable[..., None]) -> Iterator[None]:
    """Inside the block, `enqueue(func, *args)` calls `taker(func, *args)` instead of queueing."""
    global _taker
    if _taker is not None:
        raise RuntimeError("a task taker is already installed")
    _taker = taker
    try:
        yield
    finally:
        _taker = None


def enqueue(func: str, *args: Any, timeout: int | None = None, save: bool = True) -> str | None:
    """Queue `func(*args)` (a dotted path) on the cluster. Never raises: a lost enqueue is recovered
    by the periodic sweep, while an exception here would fail the request that triggered it."""
    if _taker is not None:
        _taker(func, *args)
        return None
    options: dict[str, Any] = {"save": save}
    if timeout is not None:
        options["timeout"] = timeout
    try:
        options["broker"] = _shared_broker()
        return async_task(func, *args, q_options=options)
    except Exception:
        log.exception("could not enqueue %s%r; the sweep will pick it up", func, args)
        return None

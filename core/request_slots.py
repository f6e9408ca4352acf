"""A few requests of a web process run at once; the others wait for a slot, first come first served.

Every request runs on a thread of its own (core.asgi_handler), and a process runs one thread's
Python at a time (the GIL). With 25 requests in a process, 25 threads took the GIL in the order
the OS woke them: each request was sliced among all the others, and how long it took was luck
(p95 twice the median, docs/benchmarks.md). Here a request waits on the event loop, in arrival
order (asyncio's semaphore wakes its waiters in order), for one of HIPJUDGE_WEB_RUNNING slots,
runs, and hands the slot on. A few slots rather than one, so that one request's database round
trips overlap another's Python.

A request that keeps its slot for HIPJUDGE_WEB_SLOW_S gives it up and goes on running outside
the count: a slow request (an admin page over a large table) holds up the others for that long at
most, never for its whole run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from django.conf import settings


class RequestSlots:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._free = asyncio.Semaphore()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # the serving loop's first request (a semaphore belongs to one loop)
            self._loop, self._free = loop, asyncio.Semaphore(settings.HIPJUDGE_WEB_RUNNING)
        free = self._free
        await free.acquire()
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                free.release()

        slow = loop.call_later(settings.HIPJUDGE_WEB_SLOW_S, give_back)
        try:
            yield
        finally:
            slow.cancel()
            give_back()

"""Issue 40 (throughput): a web process runs HIPJUDGE_WEB_RUNNING requests at once and the others
wait in arrival order (25 threads sliced by the GIL in the OS's order made a request's latency luck);
a request that keeps its slot past HIPJUDGE_WEB_SLOW_S gives it up once and runs on."""

from __future__ import annotations

import asyncio
from typing import Any

from core.request_slots import RequestSlots
from tests.conftest import run_coroutine

BOUND_S = 10.0  # how long a test waits for what must happen; only a broken gate ever waits it out


async def settle() -> None:
    for _ in range(20):  # every runnable task takes its next step
        await asyncio.sleep(0)


class Requests:
    """Requests 0, 1, ... asking for a slot in that order, each holding it until told to finish."""

    def __init__(self, slots: RequestSlots, count: int) -> None:
        self.slots = slots
        self.inside: list[int] = []  # the requests holding a slot (or running past their slot), in order
        self.finish: list[asyncio.Event] = []
        self.tasks: list[asyncio.Task[None]] = []
        for _ in range(count):
            self.add()

    def add(self) -> None:
        self.finish.append(asyncio.Event())
        self.tasks.append(asyncio.create_task(self._request(len(self.tasks))))

    async def _request(self, n: int) -> None:
        async with self.slots.slot():
            self.inside.append(n)
            await self.finish[n].wait()
        self.inside.remove(n)

    async def done(self, n: int) -> None:
        self.finish[n].set()
        await asyncio.wait_for(self.tasks[n], BOUND_S)
        await settle()

    async def until_inside(self, expected: list[int]) -> None:
        async def poll() -> None:
            while self.inside != expected:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(poll(), BOUND_S)

    async def end_all(self) -> None:
        for event in self.finish:
            event.set()
        await asyncio.wait_for(asyncio.gather(*self.tasks), BOUND_S)


def test_two_slots_let_two_requests_run_and_the_rest_follow_in_arrival_order(settings: Any) -> None:
    settings.HIPJUDGE_WEB_RUNNING, settings.HIPJUDGE_WEB_SLOW_S = 2, 30

    async def main() -> None:
        requests = Requests(RequestSlots(), 6)
        await settle()
        assert requests.inside == [0, 1]
        await requests.done(1)
        assert requests.inside == [0, 2]
        await requests.done(0)
        assert requests.inside == [2, 3]
        for n in (2, 3, 4):
            await requests.done(n)
        assert requests.inside == [5]
        await requests.end_all()

    run_coroutine(main())


def test_a_slow_request_gives_its_slot_up_once_and_runs_on(settings: Any) -> None:
    settings.HIPJUDGE_WEB_RUNNING, settings.HIPJUDGE_WEB_SLOW_S = 1, 0.05

    async def main() -> None:
        requests = Requests(RequestSlots(), 1)  # request 0 takes the only slot, and is slow
        await settle()
        settings.HIPJUDGE_WEB_SLOW_S = 30  # (read as a slot is taken) the requests after it are not
        requests.add()
        await requests.until_inside([0, 1])  # 0 gave its slot to 1 and runs on
        await requests.done(0)  # 0's end gives no second slot back: 2 waits for 1
        requests.add()
        await settle()
        assert requests.inside == [1]
        await requests.done(1)
        assert requests.inside == [2]
        await requests.end_all()

    run_coroutine(main())

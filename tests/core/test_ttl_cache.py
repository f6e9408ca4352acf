"""core.ttl_cache: one computation per key at a time (the others wait for it the first time, then
keep the last value while it is computed again), a value reused until its TTL lapses on a stepped
clock, and no more than MAX_ENTRIES keys kept whatever the requests ask for."""

from __future__ import annotations

import threading

from core.ttl_cache import MAX_ENTRIES, TtlCache
from tests.support.clock import stepped_clock


def test_a_value_is_reused_until_its_ttl_lapses() -> None:
    calls: list[int] = []
    cache = TtlCache(lambda: 2.0)
    with stepped_clock() as clock:
        assert cache.get("k", lambda: calls.append(1) or len(calls)) == 1
        clock.advance(1.9)
        assert cache.get("k", lambda: calls.append(1) or len(calls)) == 1
        clock.advance(0.2)
        assert cache.get("k", lambda: calls.append(1) or len(calls)) == 2
    assert TtlCache(lambda: 0).get("k", lambda: "computed") == "computed"


def test_while_one_thread_recomputes_an_expired_value_the_others_get_the_last_one() -> None:
    cache = TtlCache(lambda: 2.0)
    computing, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow() -> str:
        calls.append("slow")
        computing.set()
        assert release.wait(30)
        return "new"

    with stepped_clock() as clock:
        cache.get("k", lambda: "old")
        clock.advance(3)
        result: list[str] = []
        worker = threading.Thread(target=lambda: result.append(cache.get("k", slow)))
        worker.start()
        assert computing.wait(30)
        assert cache.get("k", lambda: calls.append("second") or "second") == "old"  # not computed again
        release.set()
        worker.join(30)
        assert result == ["new"]
        assert cache.get("k", lambda: "again") == "new"
    assert calls == ["slow"]


def test_keys_from_requests_cannot_fill_the_memory() -> None:
    cache = TtlCache(lambda: 60.0)
    for i in range(MAX_ENTRIES * 3):
        cache.get(("tag", str(i)), lambda: "rows")
    assert len(cache._entries) <= MAX_ENTRIES
    assert len(cache._locks) <= MAX_ENTRIES

"""core.represent: an output serializer kept by the process gives what a new one gives, with each
call's own context and nothing left of the last call's; requests on new threads reuse it, and two
threads at once never share one."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from rest_framework import serializers

from core.represent import represent


class Output(serializers.Serializer):
    name = serializers.CharField()
    size = serializers.IntegerField(source="dims.size")
    seen_by = serializers.SerializerMethodField()

    def get_seen_by(self, obj: Any) -> str | None:
        return self.context.get("viewer")


def item(name: str, size: int) -> SimpleNamespace:
    return SimpleNamespace(name=name, dims=SimpleNamespace(size=size))


def test_it_gives_what_a_new_serializer_gives_with_each_calls_context() -> None:
    for thing, context in ((item("a", 1), {"viewer": "ann"}), (item("b", 2), {"viewer": "bob"}), (item("c", 3), None)):
        assert represent(Output, thing, context=context) == dict(Output(thing, context=context or {}).data)
    assert represent(Output, item("d", 4)) == {"name": "d", "size": 4, "seen_by": None}  # no context left over


def test_a_request_on_a_new_thread_reuses_the_serializer_made_before() -> None:
    """Under ASGI each request has a thread of its own: a per-thread cache would never be reused."""
    made = 0
    real_init = Output.__init__

    def counting_init(self: Output, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        made += 1
        real_init(self, *args, **kwargs)

    Output.__init__ = counting_init  # type: ignore[method-assign]
    try:
        for n in range(5):
            thread = threading.Thread(target=represent, args=(Output, item("x", n)))
            thread.start()
            thread.join(30)
    finally:
        Output.__init__ = real_init  # type: ignore[method-assign]
    assert made <= 1


def test_two_threads_at_once_never_share_a_serializer() -> None:
    results: dict[str, Any] = {}
    barrier = threading.Barrier(2)

    def work(viewer: str) -> None:
        barrier.wait()
        results[viewer] = [represent(Output, item(viewer, n), context={"viewer": viewer})["seen_by"]
                           for n in range(200)]

    threads = [threading.Thread(target=work, args=(v,)) for v in ("ann", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == {"ann": ["ann"] * 200, "bob": ["bob"] * 200}

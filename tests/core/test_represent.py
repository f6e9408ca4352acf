"""core.represent: an output serializer kept per thread gives what a new one gives, with each call's
own context and nothing left of the last call's."""

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


def test_each_thread_has_its_own_serializer() -> None:
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

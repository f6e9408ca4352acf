"""An output serializer's fields, built once per process and kept, instead of once per response.

A DRF serializer deep-copies its declared fields each time it is made (a submission's output:
about thirty field objects, rebuilt from their arguments), about a tenth of the CPU of a POST
/api/v1/submissions (docs/benchmarks.md). For an output serializer nothing in those fields depends
on the instance: here a process keeps the serializers it made, per class, and lends one to one call
of to_representation at a time with that call's context. Under ASGI every request runs on a thread
of its own (asgiref's ThreadSensitiveContext), so the serializers wait in a queue shared by all
threads, not in a thread's own storage: a request takes one (or makes one when all are lent) and
puts it back.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

from rest_framework import serializers

_spare: dict[type, queue.SimpleQueue[serializers.Serializer]] = {}
_spare_lock = threading.Lock()


def _queue(serializer_class: type[serializers.Serializer]) -> queue.SimpleQueue[serializers.Serializer]:
    spare = _spare.get(serializer_class)
    if spare is None:
        with _spare_lock:
            spare = _spare.setdefault(serializer_class, queue.SimpleQueue())
    return spare


def represent(serializer_class: type[serializers.Serializer], instance: Any, *,
              context: dict[str, Any] | None = None) -> dict[str, Any]:
    """What serializer_class(instance, context=context).data gives, as a plain dict."""
    spare = _queue(serializer_class)
    try:
        serializer = spare.get_nowait()
    except queue.Empty:
        serializer = serializer_class()
    serializer._context = context or {}  # what every field's .context reads (through .root)
    try:
        return dict(serializer.to_representation(instance))
    finally:
        serializer._context = {}
        spare.put(serializer)

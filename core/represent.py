"""An output serializer's fields, built once per thread instead of once per response.

A DRF serializer deep-copies its declared fields each time it is made (a submission's output:
about thirty field objects, rebuilt from their arguments), about a tenth of the CPU of a POST
/api/v1/submissions (docs/benchmarks.md). For an output serializer nothing in those fields depends
on the instance: here each thread keeps one serializer per class and lends it its context for one
call of to_representation. A thread runs one request at a time, so no two requests share one.
"""

from __future__ import annotations

import threading
from typing import Any

from rest_framework import serializers

_local = threading.local()


def represent(serializer_class: type[serializers.Serializer], instance: Any, *,
              context: dict[str, Any] | None = None) -> dict[str, Any]:
    """What serializer_class(instance, context=context).data gives, as a plain dict."""
    made: dict[type, serializers.Serializer] = _local.__dict__.setdefault("serializers", {})
    serializer = made.get(serializer_class)
    if serializer is None:
        serializer = made[serializer_class] = serializer_class()
    serializer._context = context or {}  # what every field's .context reads (through .root)
    try:
        return dict(serializer.to_representation(instance))
    finally:
        serializer._context = {}

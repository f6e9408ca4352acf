"""The API's JSON renderer, which also passes through JSON a view encoded ahead (EncodedJSON).

The problem list is the same for every caller but for the caller's own bests: its rows are encoded
once per process and cache period (web/api/problems.py) instead of once per request, where encoding
them was a fifth of the request's CPU (docs/benchmarks.md). encode() is the renderer's own encoding,
so a document joined from encoded parts is byte for byte what rendering it whole gives.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rest_framework import renderers


class EncodedJSON:
    """A JSON document, already encoded by encode() (or joined from parts it encoded)."""

    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        self.body = body

    @classmethod
    def array(cls, items: list[bytes]) -> EncodedJSON:
        return cls(b"[" + b",".join(items) + b"]")


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        if isinstance(data, EncodedJSON):
            if self.get_indent(accepted_media_type or "", renderer_context or {}) is None:
                return data.body
            data = json.loads(data.body)  # `Accept: application/json; indent=4` asked for it laid out
        return super().render(data, accepted_media_type, renderer_context)


_encoder = JSONRenderer()


def encode(value: Any) -> bytes:
    """The bytes the API's renderer gives for value (compact, as every answer)."""
    return _encoder.render(value)

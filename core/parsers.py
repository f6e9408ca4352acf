"""The API's JSON parser: any body gives a value or a 400/413 in the error shape, never a 500.

DRF's stock JSONParser turns only ValueError into a 400. Python's json module parses nested arrays
and objects by recursion, so about a thousand `[` (2 KB) raise RecursionError instead, which DRF lets
through as a 500 with a traceback. This parser reads at most the body limit, turns that
RecursionError into a 400, and refuses a value nested deeper than MAX_DEPTH (checked without
recursion): what the views, serializers and the error renderer do with a value afterwards recurses
too. It also refuses what JSON has no business sending: NaN, Infinity, and a number that overflows
to infinity. No request of the API nests anywhere near MAX_DEPTH.
"""

from __future__ import annotations

import codecs
import json
import math
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


class BodyTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is larger than the limit."
    default_code = "body_too_large"


def nesting_depth(value: Any, limit: int) -> int:
    """How deep arrays and objects nest in `value` (a scalar is 0), counted up to `limit + 1`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text[:40]} is out of range")
    return number


def parse_json(raw: bytes, *, encoding: str = "utf-8") -> Any:
    """The value of a JSON body, or ParseError (400) saying what is wrong with it."""
    try:
        value = json.loads(codecs.decode(raw, encoding), parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise ParseError(f"JSON parse error - arrays and objects nest deeper than {MAX_DEPTH} levels.") from None
    except ValueError as exc:  # UnicodeDecodeError and json.JSONDecodeError included
        raise ParseError(f"JSON parse error - {exc}") from None
    if nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise ParseError(f"JSON parse error - arrays and objects nest deeper than {MAX_DEPTH} levels.")
    return value


def _encoding(parser_context: Mapping[str, Any] | None) -> str:
    """The charset the Content-Type names (a text encoding only: a bytes-to-bytes codec such as
    bz2_codec would expand the body after its size was checked), else the default."""
    encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
    try:
        "".encode(encoding)
    except (LookupError, UnicodeError):
        raise ParseError(f"Unsupported charset {str(encoding)[:40]!r} in the Content-Type header.") from None
    return encoding


class LimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        encoding = _encoding(parser_context)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise BodyTooLarge(f"The request body is larger than the limit of {limit} bytes.")
        return parse_json(raw, encoding=encoding)

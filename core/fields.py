"""Serializer fields that accept exactly what the schema says."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from rest_framework import serializers
from rest_framework.fields import empty


class StrictCharField(serializers.CharField):
    """A text field that refuses numbers and booleans in JSON instead of turning them into text:
    the schema says `string`, so `"source": 0` is a 400, as any client generated from it expects."""

    default_error_messages = {"invalid": "Not a valid string."}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """An integer field that refuses text and booleans in JSON (`"7"`, `true`); a form sends every
    value as text, so there text is parsed as usual."""

    def to_internal_value(self, data: Any) -> int:
        from_form = isinstance(getattr(self.root, "initial_data", None), QueryDict)
        if isinstance(data, bool) or (isinstance(data, str) and not from_form):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A boolean that is `true` or `false` in JSON (not `"true"`, `1` or `"yes"`); a form sends text,
    which is read as usual, and a field a form leaves out is not given (DRF would read it as false)."""

    default_empty_html = empty

    def to_internal_value(self, data: Any) -> bool:
        from_form = isinstance(getattr(self.root, "initial_data", None), QueryDict)
        if not isinstance(data, bool) and not from_form:
            self.fail("invalid", input=data)
        return super().to_internal_value(data)

"""The `subid` path converter: a submission's whole id or its start, as users type it (the pages
show 8 hex digits). Which submission it names is the view's to find, among the caller's own
(submissions.selectors.submission_find)."""

from __future__ import annotations

from django.urls import register_converter


class ShortIdConverter:
    # 4 to 36 characters of hex digits and dashes; submission_find refuses what is not an id's start.
    regex = "[0-9a-fA-F-]{4,36}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: object) -> str:
        return str(value)


register_converter(ShortIdConverter, "subid")

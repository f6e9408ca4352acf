"""Submission ids as a user types them: the whole UUID, or its start (the 8 characters the pages
show), looked up among the caller's own submissions (staff: everyone's)."""

from __future__ import annotations

from typing import Any

from cli import shapes
from cli.api import ApiError

MIN_DIGITS = 4
HEX = frozenset("0123456789abcdef")
ID_PAGE = {"results": [{"id": str}]}


def submission_id(client: Any, text: str) -> str:
    """The full id that `text` names; ApiError 404 when none matches, 409 when several do."""
    wanted = text.strip().lower()
    digits = wanted.replace("-", "")
    if len(digits) == 32 and set(digits) <= HEX:
        return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"
    if len(digits) < MIN_DIGITS or not set(digits) <= HEX:
        raise ApiError(400, f"{text!r} is not a submission id: give the id or its first {MIN_DIGITS}+ characters "
                            "(the pages show 8)")
    page = shapes.ask(client, ID_PAGE, "GET", "/submissions", query={"id": wanted, "all": "true", "page_size": 10})
    found = [row["id"] for row in page["results"]]
    if len(found) == 1:
        return str(found[0])
    if not found:
        raise ApiError(404, f"No submission of yours starts with {wanted!r}.")
    more = " and more" if page.get("next") else ""
    raise ApiError(409, f"{wanted!r} starts {len(found)} submissions ({', '.join(found)}{more}); "
                        "give more of the id.")

"""`GET /api/v1/submissions?id=<start>`: the caller's submissions whose id starts so, dashed or not
(PostgreSQL compares the dashed text, SQLite the bare hex)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.ranked import submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


@pytest.mark.integration  # the PostgreSQL pass runs it too: the lookup differs there
def test_a_submission_is_found_by_the_start_of_its_id_and_only_by_its_owner(owner: Any, other_user: Any,
                                                                            api_as: Any) -> None:
    mine = submit(owner, mode="check")
    full = str(mine.pk)
    for start in (full[:8], full[:8].upper(), full[:13], full[:13].replace("-", ""), full):
        found = api_as(owner).get("/api/v1/submissions", {"id": start}).json()["results"]
        assert [s["id"] for s in found] == [full], start
    assert api_as(other_user).get("/api/v1/submissions", {"id": full[:8]}).json()["results"] == []
    for bad in ("abc", "0" * 33, " abcd", "abcg"):
        refused = api_as(owner).get("/api/v1/submissions", {"id": bad})
        assert refused.status_code == 400, bad
        assert "4 to 32 hex digits" in str(refused.json()), bad

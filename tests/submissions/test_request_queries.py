"""Issue 40: at 50 clients on 2 web processes GET /api/v1/problems and POST /api/v1/submissions were
bound by the web processes' CPU, much of it Django compiling the same queries again at every request
(the caller's bests, with a window and CASE expressions, cost more to compile than to answer). The
queries every such request asks are compiled once per process (core.prepared_query); a request then
compiles no SELECT at all. Counted in compiles and queries, never timed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fleets.models import PoolArrivals
from submissions.models import Submission
from tests.conftest import read_source
from tests.submissions.browse_data import solve
from tests.support.clock import stepped_clock
from web.api import problems as problem_apis

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


@pytest.fixture(autouse=True)
def empty_list_cache() -> Iterator[None]:
    problem_apis._shared_rows.clear()
    yield
    problem_apis._shared_rows.clear()


def submit(api: Any) -> Any:
    response = api.post("/api/v1/submissions", {"problem": "vector-add", "language": "cpp",
                                                "source": read_source("cpp.cpp")}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_the_problem_list_compiles_no_query_once_its_shared_rows_are_cached(
        owner: Any, other_user: Any, api_as: Any, local_pool: Any, settings: Any, compiles: list[str],
        django_assert_num_queries: Any) -> None:
    settings.HIPJUDGE_PROBLEM_LIST_CACHE_TTL = 60
    best = solve(owner, "softmax", pool=local_pool)
    best.score_ms = 1.5
    best.save(update_fields=["score_ms"])
    owners, others = api_as(owner), api_as(other_user)
    with stepped_clock():
        others.get("/api/v1/problems")  # the shared rows, the token's first use written down
        owners.get("/api/v1/problems")
        compiles.clear()
        with django_assert_num_queries(2):  # the token with its user, the caller's bests
            rows = owners.get("/api/v1/problems").json()
        assert compiles == []
        mine = next(r for r in rows if r["slug"] == "softmax")["your_best"]
        assert [b["score_ms"] for b in mine] == [1.5]  # the caller's own, read with the compiled query
        assert all(r["your_best"] == [] for r in others.get("/api/v1/problems").json())  # and not another's
        assert compiles == []


def test_a_submission_compiles_no_select_once_the_process_took_one(owner: Any, other_user: Any, api_as: Any,
                                                                    compiles: list[str],
                                                                    django_assert_max_num_queries: Any) -> None:
    owners, others = api_as(owner), api_as(other_user)
    with stepped_clock() as clock:  # the problem and pool rows stay cached (HIPJUDGE_LOOKUP_CACHE_TTL)
        submit(owners)
        clock.advance(0.5)  # queued after the owner's
        others.get("/api/v1/problems")  # the token's first use is written down (then once a minute)
        compiles.clear()
        # The token, the user's row locked, their standing, their quota, the submission with its
        # judging and first event (and the savepoint around them), its place in the queue.
        with django_assert_max_num_queries(10):
            created = submit(others)
    assert [sql for sql in compiles if sql.lstrip().upper().startswith("SELECT")] == []
    assert created["queue_position"] == 2
    assert Submission.objects.get(pk=created["id"]).user == other_user


def test_the_pools_arrivals_count_a_submission_once_it_is_committed(
        owner: Any, api_as: Any, settings: Any, django_capture_on_commit_callbacks: Any) -> None:
    api = api_as(owner)
    with django_capture_on_commit_callbacks(execute=False) as pending:
        submit(api)
        assert not PoolArrivals.objects.exists()  # not inside the submission's transaction
    for callback in pending:
        callback()
    assert list(PoolArrivals.objects.values_list("count", flat=True)) == [1]
    settings.HIPJUDGE_QUOTA_DAILY = 1
    with django_capture_on_commit_callbacks(execute=True):
        refused = api.post("/api/v1/submissions", {"problem": "vector-add", "language": "cpp",
                                                   "source": read_source("cpp.cpp")}, format="json")
    assert refused.status_code == 429
    assert list(PoolArrivals.objects.values_list("count", flat=True)) == [1]  # a refusal is no arrival

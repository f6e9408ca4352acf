"""The order of the admission gate's checks (docs/billing-and-limits.md, "Why a POST is refused"): a
submission that fails two checks gets the refusal of the earlier one, always to the paid pool so
that every check applies. Written before the checks moved into limits.admission, and kept as the
proof that the move changed no answer."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from itertools import combinations
from typing import Any

import pytest

from limits.models import Suspension
from submissions.models import Status, Submission
from tests.conftest import read_source

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")
URL = "/api/v1/submissions"

# In the gate's order: each failing check and what it answers (HTTP status, extra's `field` for bad
# input, else its `limit`).
ORDER = [
    ("bad_input", 400, "problem"),
    ("suspended", 403, "suspended"),
    ("pool_closed", 403, "pool_access"),
    ("daily_submissions", 429, "daily_submissions"),
    ("concurrent_submissions", 429, "concurrent_submissions"),
    ("credit", 402, "credit"),
    ("monthly_spend", 402, "monthly_spend"),
    ("daily_gpu_seconds", 429, "daily_gpu_seconds"),
]
ANSWERS = {name: (status, which) for name, status, which in ORDER}


@pytest.fixture
def failing(owner: Any, staff_user: Any, local_pool: Any, paid_pool: Any, credit: Any, spend: Any,
            make_submission: Any, open_to_group: Any, settings: Any) -> Callable[..., dict[str, Any]]:
    """failing("credit", "monthly_spend", ...) makes those checks fail for `owner` on the paid pool
    and returns the body to POST; the paid pool is open to `owner` unless "pool_closed" is asked."""

    def make(*names: str) -> dict[str, Any]:
        body = {"problem": "vector-add", "language": "cpp", "source": read_source("cpp.cpp"), "pool": "mi300x"}
        if "bad_input" in names:
            body["problem"] = "no-such-problem"  # the service's check, past the serializer's
        if "suspended" in names:
            Suspension.objects.create(user=owner, reason="Too many empty jobs.", created_by=staff_user)
        if "pool_closed" not in names:
            open_to_group(paid_pool, "gpu-users", owner)
        if "daily_submissions" in names:  # one submission today, none running; on the free pool: no hold
            settings.HIPJUDGE_QUOTA_DAILY = 1
            make_submission(owner, local_pool, status=Status.ACCEPTED)
        if "concurrent_submissions" in names:
            settings.HIPJUDGE_QUOTA_CONCURRENT = 1
            make_submission(owner, local_pool, status=Status.IN_QUEUE)
        if "credit" in names:  # the platform's spend, nobody's own: it uses up the credit, no user's cap
            spend(paid_pool, "1000")
        if "monthly_spend" in names:
            settings.HIPJUDGE_USER_MONTHLY_CAP = Decimal("5")
            spend(paid_pool, "5", user=owner)
        if "daily_gpu_seconds" in names:
            settings.HIPJUDGE_USER_DAILY_GPU_SECONDS = 100  # less than one submission holds (120 s)
        return body

    return make


def answer(response: Any) -> tuple[int, str]:
    extra = response.json()["extra"]
    return response.status_code, extra.get("limit") or extra.get("field")


@pytest.mark.parametrize("name", [name for name, _, _ in ORDER])
def test_each_check_alone_gives_its_own_refusal(name: str, failing: Any, owner: Any, api_as: Any) -> None:
    body = failing(name)
    submitted = Submission.objects.count()
    response = api_as(owner).post(URL, body, format="json")
    assert answer(response) == ANSWERS[name]
    assert Submission.objects.count() == submitted  # nothing of a refused submission is stored


@pytest.mark.parametrize(("first", "later"), list(combinations([name for name, _, _ in ORDER], 2)))
def test_of_two_failing_checks_the_earlier_answers(first: str, later: str, failing: Any, owner: Any,
                                                   api_as: Any) -> None:
    response = api_as(owner).post(URL, failing(first, later), format="json")
    assert answer(response) == ANSWERS[first]


def test_every_check_failing_at_once_answers_as_bad_input_then_as_the_suspension(failing: Any, owner: Any,
                                                                                 api_as: Any) -> None:
    everything = [name for name, _, _ in ORDER]
    assert answer(api_as(owner).post(URL, failing(*everything), format="json")) == (400, "problem")
    body = {**failing(), "problem": "vector-add"}  # the same state, valid input
    assert answer(api_as(owner).post(URL, body, format="json")) == (403, "suspended")


def test_the_web_form_answers_two_failing_checks_with_the_earlier_ones_status(failing: Any, owner: Any,
                                                                               client: Any) -> None:
    body = failing("concurrent_submissions", "credit")
    client.force_login(owner)
    response = client.post("/problems/vector-add/", {**body, "mode": "benchmark"})
    assert response.status_code == 429
    assert "submission(s) queued or running" in response.content.decode()

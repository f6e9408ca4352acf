"""The fault test's client adopts, after an unclear answer, the one submission of the user's that none
of their earlier items holds (tests/faults/load.py): its items carry no tag of their own."""

from __future__ import annotations

from typing import Any

import pytest

from submissions.models import Problem, Submission
from tests.faults.load import SOURCE_MARK, Item, Load

pytestmark = [pytest.mark.faults, pytest.mark.usefixtures("problems_loaded")]


def submission(user: Any, pool: Any) -> str:
    problem = Problem.objects.select_related("current_version").get(slug="vector-add")
    return str(Submission.objects.create(user=user, problem=problem, problem_version=problem.current_version,
                                         pool=pool, language="cpp", source=f"// {SOURCE_MARK}{user.username}\n").pk)


def test_an_unclear_answer_is_resolved_to_the_users_submission_no_item_holds(make_user: Any,
                                                                            local_pool: Any) -> None:
    ada, bob = make_user("ada"), make_user("bob")
    load = Load(urls=[], tokens={}, source="")
    first = Item("ada", 0, id=submission(ada, local_pool))
    second = Item("ada", 1)
    load.items += [first, second]
    submission(bob, local_pool)  # another user's: never adopted
    assert not load._adopt(second)
    assert second.id is None  # the request created nothing: retry
    created = submission(ada, local_pool)
    assert load._adopt(second)
    assert second.id == created
    assert second.adopted
    assert load.outcomes == {"adopted after an unclear answer": 1}

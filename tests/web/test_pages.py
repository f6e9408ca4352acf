"""Every page renders for an anonymous visitor, a user and staff; private pages send visitors to
log in; another user's submission is a 404; page views stay within a pinned number of queries."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

PUBLIC = [("problem-list", {}), ("problem-detail", {"slug": "vector-add"}), ("leaderboard", {"slug": "vector-add"}),
          ("login", {}), ("signup", {}), ("password_reset", {}), ("password_reset_done", {}),
          ("password_reset_complete", {})]
PRIVATE = [("submission-list", {}), ("account", {}), ("password_change", {}), ("password_change_done", {})]


@pytest.fixture
def personas(owner: Any, staff_user: Any) -> dict[str, Any]:
    return {"anonymous": None, "user": owner, "staff": staff_user}


@pytest.mark.parametrize("persona", ["anonymous", "user", "staff"])
def test_every_page_renders_for_each_persona(client_as: Any, personas: dict, persona: str, make_submission: Any,
                                             owner: Any) -> None:
    accepted, wrong = make_submission(owner, "accepted"), make_submission(owner, "wrong")
    client = client_as(personas[persona])
    for name, kwargs in PUBLIC:
        response = client.get(reverse(name, kwargs=kwargs))
        if persona != "anonymous" and name in ("login", "signup"):
            assert response.status_code == 302, name  # already logged in: nothing to do there
        else:
            assert response.status_code == 200, name
    owner_pages = [("submission-detail", {"submission_id": accepted.pk}),
                   ("submission-detail", {"submission_id": wrong.pk}),
                   ("submission-live", {"submission_id": accepted.pk})]
    for name, kwargs in PRIVATE + owner_pages:
        response = client.get(reverse(name, kwargs=kwargs))
        if persona == "anonymous":
            assert response.status_code == 302, name
            assert response["Location"].startswith("/login/"), name
        else:
            assert response.status_code == 200, (name, response.status_code)


def test_another_users_submission_is_not_found(client_as: Any, make_submission: Any, owner: Any,
                                               other_user: Any) -> None:
    submission = make_submission(owner, "accepted")
    client = client_as(other_user)
    for name in ("submission-detail", "submission-live"):
        assert client.get(reverse(name, kwargs={"submission_id": submission.pk})).status_code == 404
    response = client.post(reverse("submission-cancel", kwargs={"submission_id": submission.pk}))
    assert response.status_code == 404
    # Nor can they load its source into their editor.
    page = client.get(reverse("problem-detail", kwargs={"slug": "vector-add"}) + f"?from={submission.pk}")
    assert submission.source not in page.content.decode()


def test_staff_see_any_submission(client_as: Any, make_submission: Any, owner: Any, staff_user: Any) -> None:
    submission = make_submission(owner, "wrong")
    response = client_as(staff_user).get(reverse("submission-detail", kwargs={"submission_id": submission.pk}))
    assert response.status_code == 200
    assert "owner" in response.content.decode()


def test_unknown_things_are_404(client_as: Any, owner: Any, problems_loaded: None) -> None:
    client = client_as(owner)
    assert client.get("/problems/no-such-problem/").status_code == 404
    assert client.get("/problems/no-such-problem/leaderboard/").status_code == 404
    assert client.get("/submissions/00000000-0000-0000-0000-000000000000/").status_code == 404


# ---- query counts (pinned: a page must not issue one query per row) --------------------------------
def _many(make_submission: Any, user: Any, n: int = 12) -> None:
    for i in range(n):
        make_submission(user, ("accepted", "ranked", "wrong", "compile_error", "queued")[i % 5], score=0.1 + i)


def test_problem_list_queries_are_pinned(client_as: Any, owner: Any, make_submission: Any,
                                         django_assert_max_num_queries: Any) -> None:
    _many(make_submission, owner)
    client = client_as(owner)
    # Two of them are the filter form's counts and the solved-by counts (tests/web/test_browse.py), one
    # the best speed of light per pool.
    with django_assert_max_num_queries(8):
        assert client.get(reverse("problem-list")).status_code == 200


def test_problem_page_queries_are_pinned(client_as: Any, owner: Any, make_submission: Any,
                                         django_assert_max_num_queries: Any) -> None:
    _many(make_submission, owner)
    client = client_as(owner)
    with django_assert_max_num_queries(7):  # one for the best speed of light per pool
        assert client.get(reverse("problem-detail", kwargs={"slug": "vector-add"})).status_code == 200


def test_history_queries_are_pinned(client_as: Any, owner: Any, make_submission: Any,
                                    django_assert_max_num_queries: Any) -> None:
    _many(make_submission, owner, 30)
    client = client_as(owner)
    with django_assert_max_num_queries(7):
        response = client.get(reverse("submission-list"))
    assert response.status_code == 200
    assert "Page 1 of 2" in response.content.decode()


def test_submission_page_queries_are_pinned(client_as: Any, owner: Any, make_submission: Any,
                                            django_assert_max_num_queries: Any) -> None:
    submission = make_submission(owner, "accepted")
    client = client_as(owner)
    with django_assert_max_num_queries(6):
        assert client.get(reverse("submission-detail", kwargs={"submission_id": submission.pk})).status_code == 200
    with django_assert_max_num_queries(6):
        assert client.get(reverse("submission-live", kwargs={"submission_id": submission.pk})).status_code == 200


def test_a_ranked_submissions_page_queries_are_pinned(client_as: Any, owner: Any, make_submission: Any,
                                                      django_assert_max_num_queries: Any) -> None:
    submission = make_submission(owner, "ranked")
    client = client_as(owner)
    with django_assert_max_num_queries(9):  # + its rank (two), its ranked cases, its history
        page = client.get(reverse("submission-detail", kwargs={"submission_id": submission.pk}))
    assert 'data-testid="rank">1<' in page.content.decode()
    with django_assert_max_num_queries(8):  # the live part, fetched after each event: all but the history
        assert client.get(reverse("submission-live", kwargs={"submission_id": submission.pk})).status_code == 200


def test_leaderboard_queries_are_pinned(client_as: Any, owner: Any, other_user: Any, make_submission: Any,
                                        django_assert_max_num_queries: Any) -> None:
    _many(make_submission, owner)
    _many(make_submission, other_user)
    client = client_as(owner)
    with django_assert_max_num_queries(7):  # one for the problem versions the speed of light is computed from
        response = client.get(reverse("leaderboard", kwargs={"slug": "vector-add"}))
    assert response.status_code == 200
    assert response.content.decode().count('class="me"') == 1  # one row per user


def test_account_queries_are_pinned(client_as: Any, owner: Any, make_submission: Any,
                                    django_assert_max_num_queries: Any) -> None:
    _many(make_submission, owner)
    client = client_as(owner)
    with django_assert_max_num_queries(9):  # the caps on paid pools: spend, GPU-seconds, holds, cap, standing
        assert client.get(reverse("account")).status_code == 200


def test_the_favicon_browsers_ask_for_is_there(client: Any) -> None:
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301
    assert answer["Location"].endswith("/web/favicon.svg")

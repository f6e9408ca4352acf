"""Short ids in URLs: /submissions/<start>/ and GET /api/v1/submissions/<start> name the caller's own
submission (staff: anyone's) by the start of its id, as the pages show it; a start several share
is refused with a 400 that lists them, never a 500; someone else's is a 404."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from submissions.models import Judging, Submission, SubmissionEvent


def _with_id(submission: Any, new_id: str) -> Any:
    """The submission moved to a chosen id (two sharing a start cannot be left to chance)."""
    old, new = submission.pk, uuid.UUID(new_id)
    Submission.objects.filter(pk=old).update(id=new)
    for model in (Judging, SubmissionEvent):
        model.objects.filter(submission_id=old).update(submission_id=new)
    return Submission.objects.get(pk=new)


def test_the_page_of_a_short_id_redirects_to_the_submission(client_as: Any, owner: Any, make_submission: Any) -> None:
    mine = make_submission(owner, "accepted")
    full = str(mine.pk)
    for start in (full[:8], full[:8].upper(), full[:13]):
        response = client_as(owner).get(f"/submissions/{start}/")
        assert response.status_code == 302, start
        assert response["Location"] == f"/submissions/{full}/"
    assert client_as(owner).get(f"/submissions/{full}/").status_code == 200


def test_the_api_detail_answers_a_short_id(api_as: Any, owner: Any, make_submission: Any) -> None:
    mine = make_submission(owner, "accepted")
    answer = api_as(owner).get(f"/api/v1/submissions/{str(mine.pk)[:8]}")
    assert answer.status_code == 200
    assert answer.json()["id"] == str(mine.pk)
    changed = api_as(owner).patch(f"/api/v1/submissions/{str(mine.pk)[:8]}", {"public_source": True},
                                  format="json")
    assert changed.status_code == 200 and changed.json()["public_source"] is True


def test_a_short_id_of_someone_elses_submission_is_not_found(client_as: Any, api_as: Any, owner: Any,
                                                             other_user: Any, make_submission: Any) -> None:
    theirs = make_submission(other_user, "accepted")
    start = str(theirs.pk)[:8]
    assert client_as(owner).get(f"/submissions/{start}/").status_code == 404
    answer = api_as(owner).get(f"/api/v1/submissions/{start}")
    assert answer.status_code == 404
    assert answer.json()["message"] == "No such submission."


def test_a_start_several_submissions_share_is_a_clear_400(client_as: Any, api_as: Any, owner: Any,
                                                         make_submission: Any) -> None:
    first = _with_id(make_submission(owner, "accepted"), "abcd1234-0000-4000-8000-000000000001")
    second = _with_id(make_submission(owner, "accepted"), "abcd1234-0000-4000-8000-000000000002")
    answer = api_as(owner).get("/api/v1/submissions/abcd1234")
    assert answer.status_code == 400
    message = answer.json()["message"]
    assert "more than one submission" in message and str(first.pk) in message and str(second.pk) in message
    page = client_as(owner).get("/submissions/abcd1234/")
    assert page.status_code == 400
    assert "give more of its id" in page.content.decode()
    assert api_as(owner).get("/api/v1/submissions/abcd1234-0000-4000-8000-00000000000").status_code == 400
    assert api_as(owner).get("/api/v1/submissions/abcd1234-0000-4000-8000-000000000002").json()["id"] == str(second.pk)


@pytest.mark.parametrize("text", ["abc", "zzzzzzzz", "----", "abcd" * 9 + "a"])
def test_what_is_no_id_start_is_a_404_not_a_500(client_as: Any, api_as: Any, owner: Any, text: str) -> None:
    assert client_as(owner).get(f"/submissions/{text}/").status_code == 404
    assert api_as(owner).get(f"/api/v1/submissions/{text}").status_code == 404

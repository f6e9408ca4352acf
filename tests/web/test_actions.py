"""What people do through the pages: submit (paste or upload, check-only or full), filter their
history, manage their API token, sign up, reset a password; and what the progress view derives."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.conftest import read_source

pytestmark = pytest.mark.django_db
PROBLEM_URL = "/problems/vector-add/"


def test_it_submits_pasted_source_in_check_only_mode(client_as: Any, owner: Any, problems_loaded: None,
                                                     local_pool: Any) -> None:
    from submissions.models import Submission

    response = client_as(owner).post(PROBLEM_URL, {"language": "cpp", "pool": "local", "mode": "check",
                                                   "source": read_source("cpp.cpp")})
    submission = Submission.objects.get(user=owner)
    assert response.status_code == 302
    assert response["Location"] == f"/submissions/{submission.pk}/"
    assert (submission.mode, submission.status, submission.language) == ("check", "IN_QUEUE", "cpp")


def test_a_pool_without_the_gpu_offers_a_compile_only_check_of_a_hip_kernel(client_as: Any, owner: Any,
                                                                            problems_loaded: None,
                                                                            local_pool: Any) -> None:
    from submissions.models import Submission

    local_pool.config = {"compile_only_languages": ["hip"], "emulated_languages": []}
    local_pool.save()
    client = client_as(owner)
    page = client.get(PROBLEM_URL).content.decode()
    assert "compile-checks hip" in page
    assert 'value="compile"' in page
    hip = read_source("hip.hip")
    response = client.post(PROBLEM_URL, {"language": "hip", "pool": "local", "mode": "compile", "source": hip})
    submission = Submission.objects.get(user=owner)
    assert response.status_code == 302
    assert (submission.language, submission.mode) == ("hip", "compile")
    refused = client.post(PROBLEM_URL, {"language": "hip", "pool": "local", "mode": "benchmark", "source": hip})
    assert refused.status_code == 200
    assert "can only compile-check hip" in refused.content.decode()


def test_an_uploaded_file_replaces_the_text(client_as: Any, owner: Any, problems_loaded: None,
                                            local_pool: Any) -> None:
    from submissions.models import Submission

    upload = SimpleUploadedFile("sol.cpp", read_source("cpp.cpp").encode())
    client_as(owner).post(PROBLEM_URL, {"language": "cpp", "pool": "local", "mode": "benchmark",
                                        "source": "ignored", "source_file": upload})
    assert Submission.objects.get(user=owner).source == read_source("cpp.cpp")


def test_it_explains_a_refusal_on_the_form(client_as: Any, owner: Any, problems_loaded: None,
                                           local_pool: Any) -> None:
    response = client_as(owner).post(PROBLEM_URL, {"language": "hip", "pool": "local", "mode": "benchmark",
                                                   "source": "x"})
    assert response.status_code == 200
    assert "so mode benchmark is not possible (emulated times mean nothing)" in response.content.decode()
    empty = client_as(owner).post(PROBLEM_URL, {"language": "cpp", "pool": "local", "mode": "check", "source": " "})
    assert "Write your kernel in the editor or choose a file." in empty.content.decode()


def test_anonymous_posts_are_sent_to_log_in(client: Any, problems_loaded: None, local_pool: Any) -> None:
    response = client.post(PROBLEM_URL, {"language": "cpp", "pool": "local", "mode": "check", "source": "x"})
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_edit_and_resubmit_loads_your_own_source(client_as: Any, owner: Any, make_submission: Any) -> None:
    submission = make_submission(owner, "wrong")
    page = client_as(owner).get(f"{PROBLEM_URL}?from={submission.pk}").content.decode()
    assert "extern &quot;C&quot; void solution() {}" in page


def test_history_filters(client_as: Any, owner: Any, make_submission: Any) -> None:
    make_submission(owner, "accepted")
    make_submission(owner, "wrong")
    client = client_as(owner)
    failed = client.get(reverse("submission-list"), {"status": "failed"}).content.decode()
    assert "Wrong answer" in failed
    assert ">Accepted<" not in failed
    accepted = client.get(reverse("submission-list"), {"status": "accepted", "problem": "vector-add"}).content.decode()
    assert ">Accepted<" in accepted
    assert "Wrong answer" not in accepted
    none = client.get(reverse("submission-list"), {"language": "hip"}).content.decode()
    assert "Nothing matches these filters." in none


def test_leaderboard_keeps_each_users_best_ranked_result_and_breaks_ties_by_time(
        client_as: Any, owner: Any, other_user: Any, make_user: Any, make_submission: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    early = timezone.now() - timedelta(hours=2)
    make_submission(owner, "ranked", score=2.0)
    make_submission(owner, "ranked", score=1.0, created_at=timezone.now() - timedelta(hours=1))
    make_submission(other_user, "ranked", score=1.0, created_at=early)
    make_submission(make_user("benchmarker"), "accepted", score=0.1)  # a public benchmark never ranks
    page = client_as(owner).get(reverse("leaderboard", kwargs={"slug": "vector-add"}), {"pool": "local"})
    rows = re.findall(r"<tr(?: class=\"me\")?>\s*<td class=\"num\">(\d+)</td>\s*<td>(\w+)", page.content.decode())
    assert rows == [("1", "other"), ("2", "owner")]


def test_with_a_second_pool_the_leaderboard_opens_on_the_default_pool_as_the_api_does(
        client_as: Any, owner: Any, make_submission: Any) -> None:
    from fleets.services import pool_ensure

    pool_ensure(name="demo", backend="local", device="host", max_vms=1, idle_timeout_s=60)  # sorts before "local"
    make_submission(owner, "ranked", score=1.25)
    page = client_as(None).get(reverse("leaderboard", kwargs={"slug": "vector-add"})).content.decode()
    assert re.search(r'<a href="\?pool=local" aria-current="page"', page)
    assert page.index("?pool=local") < page.index("?pool=demo")  # the default pool's tab comes first
    assert 'data-testid="ranked-score">1.250 ms' in page
    assert client_as(None).get("/api/v1/problems/vector-add/leaderboard").json()["pool"] == "local"


def test_api_tokens_are_created_shown_once_listed_and_revoked(client_as: Any, owner: Any) -> None:
    from accounts.models import ApiToken
    from accounts.tokens import token_user

    client = client_as(owner)
    created = client.post(reverse("account-token-create"), {"expires_in_days": "30"}).content.decode()
    key = re.search(r'value="([0-9a-f]{40})"', created).group(1)
    token = ApiToken.objects.get(user=owner)
    assert token_user(key=key) == owner
    assert token.digest != key
    assert key not in str(ApiToken.objects.values())
    assert 29 <= (token.expires_at - token.created_at).days <= 30
    page = client.get(reverse("account")).content.decode()
    assert key not in page
    assert f"{key[:8]}…" in page# shown in full once, then only its start
    assert re.search(r'data-testid="token-last-used">\s*<time', page)  # the key was just used above
    client.post(reverse("account-token-create"), {"expires_in_days": ""})
    assert ApiToken.objects.filter(user=owner).count() == 2
    assert token_user(key=key) == owner
    client.post(reverse("account-token-revoke"), {"token": str(token.pk)})
    assert token_user(key=key) is None
    assert ApiToken.objects.filter(user=owner).count() == 1
    assert client.get(reverse("account-token-revoke")).status_code == 405  # never by a link


def test_another_users_token_cannot_be_revoked(client_as: Any, owner: Any, other_user: Any) -> None:
    from accounts.tokens import token_create, token_user

    theirs = token_create(user=other_user)
    client_as(owner).post(reverse("account-token-revoke"), {"token": str(theirs.token.pk)})
    assert token_user(key=theirs.key) == other_user


def test_sign_up_logs_you_in(client: Any, db: Any) -> None:
    secret = "a long enough passphrase"
    response = client.post(reverse("signup"), {"username": "newbie", "email": "n@example.com",
                                               "password1": secret, "password2": secret})
    assert response.status_code == 302
    assert client.get(reverse("account")).status_code == 200


def test_password_reset_sends_a_working_link(client: Any, owner: Any) -> None:
    owner.email = "owner@example.com"
    owner.save()
    client.post(reverse("password_reset"), {"email": "owner@example.com"})
    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(/password/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "another long passphrase",
                                                    "new_password2": "another long passphrase"})
    assert done.status_code == 302
    owner.refresh_from_db()
    assert owner.check_password("another long passphrase")


# ---- the progress view ------------------------------------------------------------------------------
def _progress(submission: Any) -> Any:
    from web.progress import submission_progress

    return submission_progress(submission=submission, events=list(submission.events.order_by("seq")))


def test_progress_of_a_queued_submission_skips_nothing_yet(owner: Any, make_submission: Any) -> None:
    progress = _progress(make_submission(owner, "queued"))
    states = {s.key: s.state for s in progress.stages}
    assert states == {"IN_QUEUE": "current", "PROVISIONING": "pending", "COMPILING": "pending",
                      "CHECKING": "pending", "BENCHMARKING": "pending", "RESULT": "pending"}
    assert 0 < progress.percent < 10


def test_progress_counts_tests_and_points_at_the_first_mismatch(owner: Any, make_submission: Any) -> None:
    running = _progress(make_submission(owner, "running"))
    assert {s.key: s.state for s in running.stages}["CHECKING"] == "current"
    assert running.show_tests
    assert len(running.tests) == 1
    assert running.tests_total == 4
    assert {s.key: s.detail for s in running.stages}["CHECKING"] == "1 of 4 passed"
    wrong = _progress(make_submission(owner, "wrong"))
    assert wrong.mismatch["case"] == "n=1000"
    assert {s.key: s.detail for s in wrong.stages}["CHECKING"] == wrong.tests_said == "test 2 of 4 failed, 1 passed"
    assert [s.state for s in wrong.stages][-3:] == ["failed", "skipped", "failed"]
    accepted = _progress(make_submission(owner, "accepted"))
    assert accepted.percent == 100
    assert len(accepted.benchmarks) == 2
    assert all(s.state == "done" for s in accepted.stages)


def test_a_failed_test_never_reads_as_a_count_of_passes(client_as: Any, owner: Any, make_submission: Any) -> None:
    wrong = make_submission(owner, "wrong")
    page = client_as(owner).get(reverse("submission-detail", kwargs={"submission_id": wrong.pk})).content.decode()
    assert 'data-testid="tests-said">test 2 of 4 failed, 1 passed<' in page
    assert '<span class="stage-detail">test 2 of 4 failed, 1 passed</span>' in page
    assert "2/4" not in page

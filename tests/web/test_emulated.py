"""The pages for a HIP/CUDA check on the emulated device: the problem page offers "Check on CPU
(emulated)" with its limits beside it, the form submits it, the submission page and the history
say "emulated (CPU)", and the leaderboard never lists it."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from submissions.models import Status, Submission
from tests.conftest import finish, read_source

pytestmark = pytest.mark.django_db
PROBLEM_URL = "/problems/vector-add/"


def pool_radio(page: str, name: str) -> str:
    match = re.search(rf'<input type="radio" name="pool" value="{name}"[^>]*>', page)
    assert match, page
    return match.group(0)


def test_the_problem_page_offers_a_check_on_cpu_with_its_limits(client_as: Any, owner: Any,
                                                                problems_loaded: None, local_pool: Any) -> None:
    page = client_as(owner).get(PROBLEM_URL).content.decode()
    button = re.search(r'<button type="submit" name="mode" value="check"[^>]*data-emulated="1"[^>]*>([^<]*)</button>',
                       page)
    assert button
    assert button.group(1) == "Check on CPU (emulated)"
    assert 'aria-describedby="emulated-note"' in button.group(0)
    note = re.search(r'<p class="hint callout" id="emulated-note"[^>]*>([^<]*)</p>', page)
    assert note
    assert "Check only" in note.group(1)
    assert "no timing" in note.group(1)
    assert "LDS bank conflicts" in note.group(1)
    assert "256 MiB of buffers" in note.group(1)
    assert "hip, cuda, triton: Check on CPU (emulated)" in page
    radio = pool_radio(page, "local")
    assert 'data-languages="cpp,hip,cuda,triton"' in radio
    offers = json.loads(html.unescape(re.search(r'data-offers="([^"]*)"', radio).group(1)))
    assert offers["hip"] == {"language": "hip", "modes": ["check"], "emulated": True}
    assert offers["triton"] == {"language": "triton", "modes": ["check"], "emulated": True}  # Triton's interpreter
    assert offers["cpp"]["modes"] == ["benchmark", "check", "compile", "leaderboard"]
    assert not offers["cpp"]["emulated"]


def test_without_an_emulating_pool_there_is_no_check_on_cpu(client_as: Any, owner: Any, problems_loaded: None,
                                                            local_pool: Any) -> None:
    local_pool.config = {"emulated_languages": []}
    local_pool.save()
    page = client_as(owner).get(PROBLEM_URL).content.decode()
    assert "Check on CPU (emulated)" not in page
    assert 'id="emulated-note"' not in page
    assert 'data-languages="cpp"' in pool_radio(page, "local")


def test_the_form_submits_a_hip_check_on_the_emulated_device(client_as: Any, owner: Any, problems_loaded: None,
                                                             local_pool: Any) -> None:
    client = client_as(owner)
    response = client.post(PROBLEM_URL, {"language": "hip", "pool": "local", "mode": "check",
                                         "source": read_source("hip.hip")})
    submission = Submission.objects.get(user=owner)
    assert response.status_code == 302
    assert response["Location"] == f"/submissions/{submission.pk}/"
    assert (submission.language, submission.mode, submission.emulated) == ("hip", "check", True)
    refused = client.post(PROBLEM_URL, {"language": "cuda", "pool": "local", "mode": "benchmark",
                                        "source": read_source("cuda.cu")})
    text = html.unescape(refused.content.decode())
    assert refused.status_code == 200
    assert "Possible for cuda there: mode check (Check on CPU (emulated))." in text
    assert Submission.objects.count() == 1


def test_the_submission_page_and_the_history_say_emulated(client_as: Any, owner: Any, problems_loaded: None,
                                                          local_pool: Any, make_submission: Any) -> None:
    client = client_as(owner)
    client.post(PROBLEM_URL, {"language": "hip", "pool": "local", "mode": "check", "source": read_source("hip.hip")})
    emulated = Submission.objects.get(user=owner, language="hip")
    native = make_submission(owner, "accepted")
    page = client.get(f"/submissions/{emulated.pk}/").content.decode()
    assert re.search(r'data-testid="emulated"[^>]*>emulated \(CPU\)</span>', page)
    assert 'data-testid="emulated"' not in client.get(f"/submissions/{native.pk}/").content.decode()
    rows = client.get("/submissions/").content.decode().split("<tr>")[2:]
    [emulated_row] = [row for row in rows if f"/submissions/{emulated.pk}/" in row]
    [native_row] = [row for row in rows if f"/submissions/{native.pk}/" in row]
    assert "emulated (CPU)" in emulated_row
    assert "emulated (CPU)" not in native_row


def test_the_leaderboard_page_never_lists_an_emulated_run(client_as: Any, owner: Any, other_user: Any,
                                                          problems_loaded: None, local_pool: Any,
                                                          make_submission: Any) -> None:
    client_as(other_user).post(PROBLEM_URL, {"language": "hip", "pool": "local", "mode": "check",
                                             "source": read_source("hip.hip")})
    emulated = Submission.objects.get(user=other_user)
    finish(emulated.pk, Status.ACCEPTED, "an agent that reported more than a check")
    Submission.objects.filter(pk=emulated.pk).update(score_ms=0.001)
    make_submission(owner, "accepted", score=0.5)
    page = client_as(owner).get(f"{PROBLEM_URL}leaderboard/?pool=local").content.decode()
    assert "owner" in page
    assert "other" not in page.split("<tbody>")[1]

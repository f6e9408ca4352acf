"""Every pool picker shows which pools the caller may use: GET /api/v1/pools, the problem page's
form (a closed pool cannot be picked and says how to get access) and `hipjudge pools`; a refusal on
the form is said there, keeps the source and answers with its status."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from cli.api import ApiError
from cli.main import EXIT_VERDICT, cmd_pools, cmd_submit
from cli.output import Printer
from limits.models import Suspension
from submissions.models import Problem, Submission

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool", "credit")
PROBLEM_URL = reverse("problem-detail", kwargs={"slug": "vector-add"})


def test_the_pools_api_says_which_pools_are_open_to_the_caller(owner: Any, other_user: Any, paid_pool: Any,
                                                               open_to_group: Any, api_as: Any) -> None:
    open_to_group(paid_pool, "gpu-users", other_user)
    mine = {p["name"]: p for p in api_as(owner).get("/api/v1/pools").json()}
    assert (mine["local"]["paid"], mine["local"]["open_to_you"], mine["local"]["access"]) == (False, True, "")
    assert (mine["mi300x"]["paid"], mine["mi300x"]["open_to_you"]) == (True, False)
    assert "open to members of the group 'gpu-users'" in mine["mi300x"]["access"]
    theirs = {p["name"]: p for p in api_as(other_user).get("/api/v1/pools").json()}
    assert theirs["mi300x"]["open_to_you"]
    assert theirs["mi300x"]["access"] == ""


def test_a_suspended_caller_sees_every_pool_closed_with_the_reason(owner: Any, paid_pool: Any, api_as: Any) -> None:
    Suspension.objects.create(user=owner, reason="abuse")
    pools = api_as(owner).get("/api/v1/pools").json()
    assert {p["open_to_you"] for p in pools} == {False}
    assert all("suspended" in p["access"] and "(abuse)" in p["access"] for p in pools)


def test_the_form_disables_a_closed_pool_and_says_how_to_get_access(client: Any, owner: Any, paid_pool: Any) -> None:
    client.force_login(owner)
    html = client.get(PROBLEM_URL + "?pool=mi300x").content.decode()
    assert re.search(r'value="mi300x"[^>]*\sdisabled>', html)
    assert "open only to users with a spend allowance of their own" in html
    assert re.search(r'value="local"[^>]*\schecked>', html)  # an open pool is picked, not the one asked for


def test_a_paid_pool_whose_credit_ran_out_is_closed_and_never_picked_for_you(
        client: Any, owner: Any, paid_pool: Any, allowance: Any, spend: Any, api_as: Any, settings: Any) -> None:
    allowance(owner, None)  # open to this user while there is credit
    settings.HIPJUDGE_DEFAULT_POOL = "mi300x"
    client.force_login(owner)
    assert re.search(r'value="mi300x"[^>]*\schecked>', client.get(PROBLEM_URL).content.decode())
    problem = Problem.objects.get(slug="vector-add")
    earlier = Submission.objects.create(user=owner, problem=problem, problem_version=problem.current_version,
                                        pool=paid_pool, language="cpp", source="int edited_again;", status="ACCEPTED")
    spend(paid_pool, "1000")  # the whole credit
    for url in (PROBLEM_URL, PROBLEM_URL + "?pool=mi300x", PROBLEM_URL + f"?from={earlier.pk}"):
        html = client.get(url).content.decode()
        assert re.search(r'value="mi300x"[^>]*\sdisabled>', html), url
        assert re.search(r'value="local"[^>]*\schecked>', html), url
    assert "The GPU credit is used up" in html
    assert "int edited_again;" in html
    pools = {p["name"]: p for p in api_as(owner).get("/api/v1/pools").json()}
    assert not pools["mi300x"]["open_to_you"]
    assert "credit is used up" in pools["mi300x"]["access"]
    assert pools["local"]["open_to_you"]


def test_a_refusal_on_the_form_keeps_the_source_and_answers_with_its_status(client: Any, owner: Any,
                                                                           paid_pool: Any) -> None:
    client.force_login(owner)
    response = client.post(PROBLEM_URL, {"language": "cpp", "pool": "mi300x", "mode": "check",
                                         "source": "int my_kernel_text;"})
    assert response.status_code == 403
    html = response.content.decode()
    assert "Pool &#x27;mi300x&#x27; is a paid pool" in html
    assert "int my_kernel_text;" in html
    assert not Submission.objects.exists()


def test_a_suspended_user_sees_why_on_the_problem_page(client: Any, owner: Any) -> None:
    Suspension.objects.create(user=owner, reason="Too many empty benchmark jobs.")
    client.force_login(owner)
    html = client.get(PROBLEM_URL).content.decode()
    assert 'class="callout warn" role="alert">Your account is suspended since' in html
    assert "(Too many empty benchmark jobs)" in html


class StubClient:
    def __init__(self, reply: Any = None, error: ApiError | None = None) -> None:
        self.reply, self.error = reply, error

    def call(self, method: str, path: str, body: Any = None) -> Any:
        if self.error is not None:
            raise self.error
        return self.reply


def test_the_cli_lists_which_pools_are_open_and_why_not(capsys: Any) -> None:
    pools = [{"name": "local", "device": "host", "languages": ["cpp"], "warm_vms": 1, "max_vms": 2,
              "hourly_rate": "0.000000", "open_to_you": True, "access": ""},
             {"name": "mi300x", "device": "hip", "languages": ["hip"], "warm_vms": 0, "max_vms": 1,
              "hourly_rate": "1.990000", "open_to_you": False, "access": "Pool 'mi300x' is a paid pool, ..."}]
    assert cmd_pools(argparse.Namespace(), StubClient(pools), Printer()) == 0  # type: ignore[arg-type]
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["pool", "device", "languages", "warm", "max", "$/h", "open", "to", "you"]
    assert out[1].split()[-1] == "yes"
    assert out[2].split()[-1] == "no"
    assert out[3] == "mi300x: Pool 'mi300x' is a paid pool, ..."


@pytest.mark.parametrize("status", [402, 403, 429])
def test_the_cli_reports_any_refusal_as_rejected(status: int, tmp_path: Path, capsys: Any) -> None:
    source = tmp_path / "kernel.cpp"
    source.write_text("int x;")
    refusal = ApiError(status, "You reached your daily cap.", {"status": "REJECTED", "limit": "daily_gpu_seconds"})
    args = argparse.Namespace(file=str(source), language=None, problem="vector-add", mode="check", pool="mi300x",
                              wait=False)
    assert cmd_submit(args, StubClient(error=refusal), Printer()) == EXIT_VERDICT  # type: ignore[arg-type]
    assert "REJECTED: You reached your daily cap." in capsys.readouterr().err

"""Mode leaderboard on the platform, against the agent's ranked-pass protocol spoken by the
stand-in agent: the job carries a fresh secret seed, RANKING is its own status, the ranked result is
stored per case and becomes the submission's standing, and a failed or malformed ranked pass ranks
nothing and says why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from fleets.models import VMInstance, VMState
from leaderboard.models import RankedCaseResult, Review
from leaderboard.rejudge import submission_confirm_record
from leaderboard.selectors import submission_rank, submission_standing
from submissions.dispatch import submission_dispatch_next
from submissions.models import Judging, Status, Submission
from submissions.runner import submission_run
from tests.support import fake_agent
from tests.support.ranked import HOST_CASE, end, ranked, submit

pytestmark = pytest.mark.usefixtures("problems_loaded")


@pytest.fixture
def agent() -> Iterator[fake_agent.FakeAgent]:
    with fake_agent.running(fake_agent.FakeAgent(script=fake_agent.leaderboard_script())) as running:
        yield running


def judged(owner: Any, pool: Any, agent: fake_agent.FakeAgent) -> Submission:
    VMInstance.objects.create(pool=pool, state=VMState.WARM, base_url=agent.url, token=fake_agent.TOKEN)
    submission = submit(owner)
    assert submission_dispatch_next(pool=pool) is not None
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    return submission


def test_a_leaderboard_job_carries_a_fresh_secret_seed_and_its_record_ranks_once_confirmed(
        owner: Any, local_pool: Any, agent: fake_agent.FakeAgent) -> None:
    submission = judged(owner, local_pool, agent)
    job = agent.jobs[f"{submission.pk}-1"]
    first = Judging.objects.get(submission=submission)
    assert job["mode"] == "leaderboard"
    assert job["ranked_seed"] == first.ranked_seed
    assert isinstance(job["ranked_seed"], int)
    assert 0 <= job["ranked_seed"] < 2**63
    assert job["problem"]["baselines"]["cpp"].startswith(("#", "//", "extern", "/*"))
    assert submission.status == Status.ACCEPTED
    statuses = [e.payload["status"] for e in submission.events.filter(type="STATUS")]
    assert statuses[-2:] == ["BENCHMARKING", "RANKING"]
    assert submission.events.filter(type="RANKED_RESULT").count() == 1
    case = RankedCaseResult.objects.get(judging=first)
    assert (case.case, case.runs, case.mean_ms, case.reference_mean_ms) == (HOST_CASE, 12, 2.0, 3.0)
    first.refresh_from_db()
    assert first.status == Status.ACCEPTED
    assert first.ranked_passed is True
    assert first.speedup == 1.2
    # The pool's first ranked result is a record: it does not rank before a second judging agrees.
    assert first.record
    assert submission.entry.ranked_score_ms is None
    assert submission_rank(submission=submission) is None
    assert submission.entry.ranked_reason.startswith("A record (it would be the first ranked result of pool 'local')")
    assert submission_confirm_record(submission_id=submission.pk, judging_id=first.pk)
    assert not submission_confirm_record(submission_id=submission.pk, judging_id=first.pk)  # once
    submission.refresh_from_db()
    second = submission.judging
    assert second is not None
    assert second.confirms == first
    assert second.ranked_seed != first.ranked_seed
    assert second.avoid_vm == first_vm(submission)
    assert submission.queue_class == "rejudge"
    assert submission.events.filter(type="RECORD_CONFIRMATION").exists()
    assert submission_dispatch_next(pool=local_pool) is not None
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    assert agent.jobs[f"{submission.pk}-2"]["ranked_seed"] == second.ranked_seed
    assert submission.status == Status.ACCEPTED
    assert submission.entry.ranked_score_ms == pytest.approx(2.0)
    assert submission.entry.ranked_speedup == pytest.approx(1.5)
    assert (submission.entry.ranked_ci95_lo_ms, submission.entry.ranked_ci95_hi_ms) == pytest.approx((1.96, 2.04))
    assert submission_rank(submission=submission) == 1
    assert submission_standing(submission=submission).state == "ranked"


def first_vm(submission: Submission) -> Any:
    return VMInstance.objects.get(pool=submission.pool).pk


def test_every_submission_gets_its_own_seed(owner: Any, local_pool: Any, settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10
    seeds = {Judging.objects.get(submission=submit(owner)).ranked_seed for _ in range(5)}
    assert len(seeds) == 5
    assert None not in seeds
    assert Judging.objects.get(submission=submit(owner, mode="benchmark")).ranked_seed is None


def test_a_failed_ranked_pass_ranks_nothing_and_says_why(owner: Any, local_pool: Any,
                                                        agent: fake_agent.FakeAgent) -> None:
    agent.script = fake_agent.ranked_failure_script()
    submission = judged(owner, local_pool, agent)
    assert submission.status == Status.WRONG_ANSWER
    assert submission.status_reason.startswith("ranked pass: case 'n=3000017'")
    assert submission.entry.ranked_score_ms is None
    assert submission_rank(submission=submission) is None
    standing = submission_standing(submission=submission)
    assert standing.state == "not_ranked"
    assert standing.reason == submission.status_reason
    assert Judging.objects.get(submission=submission).ranked_passed is False


@pytest.mark.parametrize(("summary", "said"), [
    ({"tests": 1}, "the summary has no ranked result"),
    ({"ranked": {"passed": True, "score_ms": 2.0, "cases": []}}, "ranked.cases must list the ranked cases"),
    ({"ranked": fake_agent.ranked_summary([fake_agent.ranked_case("n=2^20", 0, 1, 2.0)])},
     "are not the problem's ['n=3000017']"),
    ({"ranked": {**fake_agent.ranked_summary([fake_agent.ranked_case(HOST_CASE, 0, 1, 2.0)]), "score_ms": 0.001}},
     "ranked.score_ms is not the geometric mean"),
    ({"ranked": {**fake_agent.ranked_summary([fake_agent.ranked_case(HOST_CASE, 0, 1, 2.0)]),
                 "cases": [{**fake_agent.ranked_case(HOST_CASE, 0, 1, 2.0), "mean_ms": -1}]}},
     "cases[0].mean_ms must be a positive number"),
])
def test_an_accepted_leaderboard_job_without_a_valid_ranked_result_is_a_judge_error(
        owner: Any, local_pool: Any, summary: dict, said: str) -> None:
    submission = end(submit(owner), {"status": "ACCEPTED", "reason": "ok", "score_ms": 1.0, "summary": summary})
    assert submission.status == Status.ERROR
    assert said in submission.status_reason
    assert submission.entry.ranked_score_ms is None


def test_leaderboard_mode_needs_ranked_cases_for_the_pools_device(owner: Any, local_pool: Any,
                                                                  api_as: Any) -> None:
    from submissions.models import ProblemVersion

    version = ProblemVersion.objects.get(problem__slug="vector-add")
    version.bundle["definition"]["ranked"] = [c for c in version.bundle["definition"]["ranked"]
                                              if "host" not in c["devices"]]
    version.save()
    answer = api_as(owner).post("/api/v1/submissions", {"problem": "vector-add", "language": "cpp",
                                                         "mode": "leaderboard", "source": "x"}, format="json")
    assert answer.status_code == 400
    assert answer.json()["extra"]["field"] == "mode"
    assert "has no ranked cases for the host device of pool 'local'" in answer.json()["message"]
    assert not Submission.objects.exists()


def test_an_agent_that_does_not_speak_leaderboard_ends_the_job_in_error(owner: Any, local_pool: Any,
                                                                       agent: fake_agent.FakeAgent) -> None:
    agent.post_status = 400
    submission = judged(owner, local_pool, agent)
    assert submission.status == Status.ERROR
    assert submission.status_reason.startswith("The agent refused the job")
    assert submission_standing(submission=submission).state == "not_ranked"


def test_the_leaderboard_ranks_each_users_best_listed_result(owner: Any, other_user: Any, make_user: Any,
                                                            local_pool: Any, settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10
    first = ranked(owner, 2.0)
    better = ranked(owner, 1.8)
    theirs = ranked(other_user, 1.9)
    third = make_user("third")
    slow = ranked(third, 3.0)
    assert [submission_rank(submission=s) for s in (better, theirs, slow)] == [1, 2, 3]
    assert submission_rank(submission=first) is None
    assert submission_standing(submission=first).state == "outranked"
    assert first.entry.review == Review.NONE



def test_the_seed_never_leaves_the_server_even_when_the_agent_echoes_it(
        owner: Any, staff_user: Any, make_user: Any, local_pool: Any, agent: fake_agent.FakeAgent, api_as: Any,
        caplog: Any, client: Any, tmp_path: Any) -> None:
    """A buggy agent repeats the seed in an event, a number and a reason: none of it is stored, shown,
    logged or exported (the owner would otherwise hold the inputs of their ranked pass)."""
    import io
    import logging

    from django.core.management import call_command

    def echoing(job: dict) -> fake_agent.Script:
        seed = job["ranked_seed"]
        script = fake_agent.leaderboard_script()
        script.insert(-1, ("RANKED_DEBUG", {"seed": seed, "note": f"inputs from seed {seed}", "list": [seed, 1]}))
        kind, result = script[-1]
        return [*script[:-1], (kind, {**result, "reason": f"ranked with seed={seed}"})]

    agent.script_for = echoing
    caplog.set_level(logging.DEBUG)
    ranked(make_user("fast"), 1.0)  # a faster result first: this one is no record, judged once
    submission = judged(owner, local_pool, agent)
    seed = str(Judging.objects.get(submission=submission).ranked_seed)
    assert seed in json.dumps(agent.jobs[f"{submission.pk}-1"])  # the agent got it, and only the agent
    stored = submission.events.get(type="RANKED_DEBUG").payload
    assert stored == {"seed": "[redacted]", "note": "inputs from seed [redacted]", "list": ["[redacted]", 1]}
    assert submission.status_reason == "ranked with seed=[redacted]"

    seen = [json.dumps(list(submission.events.values("type", "payload")), default=str), caplog.text]
    for viewer in (owner, staff_user):
        api = api_as(viewer)
        seen += [api.get(f"/api/v1/submissions/{submission.pk}").content.decode(),
                 api.get("/api/v1/submissions", {"all": "true"}).content.decode()]
        client.force_login(viewer)
        seen += [client.get(f"/submissions/{submission.pk}/").content.decode(),
                 client.get(f"/submissions/{submission.pk}/live").content.decode()]
    client.force_login(staff_user)
    staff_user.is_superuser = True
    staff_user.save()
    seen.append(client.get(f"/admin/submissions/submission/{submission.pk}/change/").content.decode())
    seen.append(api_as(None).get("/api/v1/problems/vector-add/leaderboard").content.decode())
    out = io.StringIO()
    call_command("export_results", stdout=out)
    seen.append(out.getvalue())
    assert submission_rank(submission=submission) == 2
    assert "[redacted]" in seen[0]
    assert [i for i, text in enumerate(seen) if seed in text] == []

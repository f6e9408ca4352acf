"""HIP and CUDA checked on the emulated device (CPU) of a pool without their GPU: what the pool
offers (API), what it refuses (clear 400s, nothing stored), how such a submission is marked, judged
(through a stand-in agent speaking the emulated contract) and kept off the leaderboard."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fleets.models import VMInstance, VMState
from fleets.services import pool_ensure
from leaderboard.models import LeaderboardEntry
from submissions.dispatch import submission_dispatch_next
from submissions.models import Status, Submission
from submissions.runner import submission_run
from tests.conftest import ROOT, finish, read_source
from tests.support import fake_agent

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")
URL = "/api/v1/submissions"


def body(**overrides: Any) -> dict[str, Any]:
    return {"problem": "vector-add", "language": "hip", "mode": "check", "source": read_source("hip.hip"),
            **overrides}


def pool_listed(client: Any, name: str = "local") -> dict[str, Any]:
    return next(p for p in client.get("/api/v1/pools").json() if p["name"] == name)


def test_the_local_pool_lists_hip_cuda_and_triton_as_checks_on_the_cpu_with_their_limits(owner: Any,
                                                                                           api_as: Any) -> None:
    pool = pool_listed(api_as(owner))
    assert pool["languages"] == ["cpp"]
    assert pool["emulated_languages"] == ["hip", "cuda", "triton"]
    assert pool["offers"] == [
        {"language": "cpp", "modes": ["benchmark", "check", "compile", "leaderboard"], "emulated": False},
        {"language": "hip", "modes": ["check"], "emulated": True},
        {"language": "cuda", "modes": ["check"], "emulated": True},
        {"language": "triton", "modes": ["check"], "emulated": True},
    ]
    note = pool["emulated_note"]
    assert note.startswith("Check on CPU (emulated): ")
    for limit in ("Check only", "256 MiB of buffers", "120 s for them all", "no timing", "no leaderboard",
                  "LDS bank conflicts", "races and the GPU memory model", "Triton's interpreter", "12 MiB"):
        assert limit in note
    # What the emulated device compiles, and as which GPU: half and bfloat16 do compile there.
    for fact in ("MI300X (gfx942)", "H100 (sm_90)", "half, bfloat16 and fp8 types and matrix instructions"):
        assert fact in note
    assert "do not compile" not in note


def test_a_triton_check_is_taken_where_the_problem_has_a_triton_template_only(owner: Any, api_as: Any,
                                                                            settings: Any,
                                                                            problem_without_triton: str) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 3
    client = api_as(owner)
    source = (ROOT / "problems" / "vector-add" / "solutions" / "triton.py").read_text()
    taken = client.post(URL, body(language="triton", source=source), format="json")
    assert taken.status_code == 201, taken.json()
    assert taken.json()["emulated"] is True and taken.json()["language"] == "triton"
    refused = client.post(URL, body(problem="radix-sort", language="triton", source=source), format="json")
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("language: problem 'radix-sort' takes no triton submissions")
    assert Submission.objects.filter(language="triton").count() == 1


def test_compile_only_stays_beside_the_emulated_check(owner: Any, api_as: Any, local_pool: Any) -> None:
    local_pool.config = {"compile_only_languages": ["hip", "cuda"], "emulated_languages": ["hip"]}
    local_pool.save()
    client = api_as(owner)
    offers = pool_listed(client)["offers"]
    assert offers[1:] == [{"language": "hip", "modes": ["check", "compile"], "emulated": True},
                          {"language": "cuda", "modes": ["compile"], "emulated": False}]
    compiled = client.post(URL, body(mode="compile"), format="json")
    assert compiled.status_code == 201
    assert compiled.json()["emulated"] is False  # hipcc, not the emulator
    refused = client.post(URL, body(language="cuda", mode="check"), format="json")
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("language: pool 'local' can only compile-check cuda (mode compile)")


def test_an_emulated_check_is_queued_and_marked_emulated(owner: Any, api_as: Any, settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 3
    client = api_as(owner)
    for language, name in (("hip", "hip.hip"), ("cuda", "cuda.cu")):
        response = client.post(URL, body(language=language, source=read_source(name)), format="json")
        assert response.status_code == 201, response.json()
        assert response.json()["emulated"] is True
        assert response.json()["mode"] == "check"
    native = client.post(URL, body(language="cpp", source=read_source("cpp.cpp")), format="json")
    assert native.json()["emulated"] is False
    assert sorted(Submission.objects.values_list("language", "emulated")) == [
        ("cpp", False), ("cuda", True), ("hip", True)]
    detail = client.get(f"{URL}/{Submission.objects.get(language='hip').pk}").json()
    assert detail["emulated"] is True


@pytest.mark.parametrize("mode", ["benchmark", "compile"])
def test_other_modes_of_an_emulated_language_get_a_clear_400_and_store_nothing(owner: Any, api_as: Any,
                                                                                mode: str) -> None:
    response = api_as(owner).post(URL, body(mode=mode), format="json")
    assert response.status_code == 400
    error = response.json()
    assert error["message"].startswith(f"mode: pool 'local' has no GPU for hip; it checks hip kernels on the "
                                       f"emulated device (CPU), so mode {mode} is not possible (")
    assert error["message"].endswith("Possible for hip there: mode check (Check on CPU (emulated)).")
    why = "emulated times mean nothing" if mode == "benchmark" else "there is no hip compiler there"
    assert why in error["message"]
    assert error["extra"]["field"] == "mode"
    assert error["extra"]["modes"] == ["check"]
    assert error["extra"]["emulated"]
    assert not Submission.objects.exists()


def test_the_pool_config_chooses_the_emulated_languages(owner: Any, api_as: Any, local_pool: Any) -> None:
    client = api_as(owner)
    local_pool.config = {"emulated_languages": ["hip"]}
    local_pool.save()
    refused = client.post(URL, body(language="cuda", source=read_source("cuda.cu")), format="json")
    assert refused.status_code == 400
    assert refused.json()["message"] == "language: pool 'local' takes cpp, hip (check), not cuda."
    local_pool.config = {"emulated_languages": []}  # make run writes [] when the agent reports none
    local_pool.save()
    assert pool_listed(client)["emulated_note"] == ""
    refused = client.post(URL, body(), format="json")
    assert refused.json()["message"] == "language: pool 'local' takes cpp, not hip."
    assert not Submission.objects.exists()


def test_a_pool_with_the_gpu_runs_its_language_for_real_and_emulates_nothing(owner: Any, api_as: Any) -> None:
    pool_ensure(name="gpu", backend="local", device="hip", max_vms=1, idle_timeout_s=60)
    client = api_as(owner)
    assert pool_listed(client, "gpu")["offers"] == [  # triton only once staff list it (never run on a GPU)
        {"language": "hip", "modes": ["benchmark", "check", "compile", "leaderboard"], "emulated": False}]
    response = client.post(URL, body(pool="gpu"), format="json")
    assert response.status_code == 201
    assert response.json()["emulated"] is False


@pytest.fixture
def agent() -> Iterator[fake_agent.FakeAgent]:
    with fake_agent.running(fake_agent.FakeAgent(script=fake_agent.emulated_check_script())) as running:
        yield running


def test_an_emulated_check_is_judged_as_a_check_and_ends_checked(owner: Any, api_as: Any, local_pool: Any,
                                                                 agent: fake_agent.FakeAgent) -> None:
    VMInstance.objects.create(pool=local_pool, state=VMState.WARM, base_url=agent.url, token=fake_agent.TOKEN)
    created = api_as(owner).post(URL, body(), format="json").json()
    assert submission_dispatch_next(pool=local_pool) is not None
    submission_run(submission_id=created["id"])
    submission = Submission.objects.get(pk=created["id"])
    assert submission.status == Status.CHECKED
    assert submission.emulated
    assert submission.status_reason == "all 1 tests passed on the emulated device (CPU)"
    assert submission.summary["device"] == "emulated"
    job = agent.jobs[f"{submission.pk}-1"]
    assert (job["language"], job["mode"]) == ("hip", "check")


def test_an_emulated_run_never_enters_the_leaderboard(owner: Any, other_user: Any, api_as: Any) -> None:
    from fleets.models import Pool
    from submissions.models import Problem
    from web.selectors import leaderboard

    refused = api_as(owner).post(URL, body(mode="leaderboard"), format="json")
    assert refused.status_code == 400
    assert "mode leaderboard is not possible" in refused.json()["message"]
    ranked = api_as(other_user).post(URL, body(language="cpp", mode="leaderboard", source=read_source("cpp.cpp")),
                                     format="json").json()
    emulated = api_as(owner).post(URL, body(), format="json").json()
    finish(ranked["id"], Status.ACCEPTED, "all tests passed")
    finish(emulated["id"], Status.ACCEPTED, "an agent that reported more than a check")
    # Both as if the agent had reported a ranked score: only the one judged on a real device shows.
    Submission.objects.filter(pk__in=[ranked["id"], emulated["id"]]).update(score_ms=1.0)
    for pk in (ranked["id"], emulated["id"]):
        LeaderboardEntry.objects.update_or_create(submission_id=pk, defaults={"ranked_score_ms": 1.0})
    rows = leaderboard(problem=Problem.objects.get(slug="vector-add"), pool=Pool.objects.get(name="local"))
    assert [str(s.pk) for s in rows] == [ranked["id"]]

"""The speed of light on the platform: a pool's peaks per type (defaults per device, staff's
overrides, validated), the review hold taking the problem's flops_type peak, and the API's
`speed_of_light` on a submission's cases and scores, on leaderboard rows and per pool on problems."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from agent.problems.roofline import H100_SXM, MI300X, Peaks
from fleets.models import Pool
from leaderboard.review import review_reasons
from submissions.models import Problem
from submissions.ranking import RankedCase, RankedResult
from tests.support.ranked import benchmarked, ranked, submit

pytestmark = pytest.mark.usefixtures("problems_loaded")
HOST_GBPS = 100e9  # the host pool's default bandwidth, bytes/s


def host_floor_ms(n: int) -> float:
    """vector-add moves 12 n bytes: its floor on the default host pool (memory bound)."""
    return 12 * n / HOST_GBPS * 1e3


@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10


# ---- the pool's peaks ----------------------------------------------------------------------------------
def test_each_device_has_documented_default_peaks_per_type() -> None:
    assert Pool(name="a", device="hip").peaks == MI300X
    assert Pool(name="b", device="cuda").peaks == H100_SXM
    host = Pool(name="c", device="host").peaks
    assert host is not None
    assert host.gbps == 100.0
    assert host.compute("bf16") == 2_000.0


def test_staff_peaks_override_the_defaults_type_by_type() -> None:
    pool = Pool(name="mi355x", device="hip", peak_gbps=8_000.0, peak_gflops=157_300.0,
                  peak_gflops_by_type={"fp8": 5_033_000.0, "bf16": 2_516_000})
    assert pool.peaks == Peaks(8_000.0, {**MI300X.gflops, "fp32": 157_300.0, "fp8": 5_033_000.0,
                                          "bf16": 2_516_000.0})


@pytest.mark.parametrize("bad", [{"fp4": 1.0}, {"fp8": 0}, {"fp8": "fast"}, {"bf16": True}, ["fp8"]])
def test_peaks_by_type_refuse_unknown_types_and_non_positive_numbers(bad: Any, db: Any) -> None:
    pool = Pool(name="bad", device="hip", peak_gflops_by_type=bad)
    with pytest.raises(ValidationError) as caught:
        pool.full_clean()
    assert "peak_gflops_by_type" in caught.value.message_dict


# ---- the review hold ------------------------------------------------------------------------------------
def _fp8_result(mean_ms: float) -> tuple[RankedResult, dict[str, Any]]:
    definition = Problem.objects.get(slug="gemm-fp8").current_version.bundle["definition"]
    case = next(c for c in definition["ranked"] if "gpu" in c["devices"])
    result = RankedResult(score_ms=mean_ms, ci95_ms=None, speedup=None, cases=(
        RankedCase(case=case["name"], index=0, runs=10, mean_ms=mean_ms, median_ms=mean_ms,
                   ci95_ms=(mean_ms, mean_ms), reference_mean_ms=None, speedup=None, gflops=None, gbps=None),))
    return result, definition


def test_the_floor_hold_takes_the_fp8_peak_of_an_fp8_gemm() -> None:
    pool = Pool(name="mi300x", device="hip")
    flops = 2 * 6144 * 6000 * 4096
    fp8_floor_ms = flops / 2_614.9e12 * 1e3
    honest, definition = _fp8_result(fp8_floor_ms / 0.45)  # 45 % of the fp8 speed of light
    # Against the fp32 peak this would be 16x faster than the device can compute: it used to be held.
    assert review_reasons(result=honest, previous_best_ms=None, definition=definition, pool=pool) == []
    near, _ = _fp8_result(fp8_floor_ms * 1.2)
    [reason] = review_reasons(result=near, previous_best_ms=None, definition=definition, pool=pool)
    assert "within 1.5x of the physical floor" in reason
    assert "2.6149e+06 GFLOPS fp8" in reason


# ---- the API -------------------------------------------------------------------------------------------
def test_a_submission_shows_each_benchmark_cases_and_its_scores_speed_of_light(owner: Any, api_as: Any,
                                                                              local_pool: Any) -> None:
    submission = benchmarked(owner, {"n=2^20": 0.5, "n=2^22": 1.0})
    body = api_as(owner).get(f"/api/v1/submissions/{submission.pk}").json()
    first, second = body["results"]["benchmarks"]
    assert first["speed_of_light"] == {"floor_ms": pytest.approx(host_floor_ms(2**20)),
                                       "percent": pytest.approx(100 * host_floor_ms(2**20) / 0.5),
                                       "peak_type": "fp32", "bound": "memory"}
    assert second["speed_of_light"]["percent"] == pytest.approx(100 * host_floor_ms(2**22) / 1.0)
    score = body["speed_of_light"]
    assert score["percent"] == pytest.approx(math.sqrt(first["speed_of_light"]["percent"]
                                                       * second["speed_of_light"]["percent"]))
    assert score["bound"] == "memory"
    assert score["peak_type"] == "fp32"


def test_a_check_only_submission_has_no_speed_of_light(owner: Any, api_as: Any, local_pool: Any) -> None:
    submission = submit(owner, mode="check")
    assert api_as(owner).get(f"/api/v1/submissions/{submission.pk}").json()["speed_of_light"] is None


def test_another_user_gets_no_speed_of_light_of_your_submission(owner: Any, other_user: Any, api_as: Any,
                                                               local_pool: Any) -> None:
    submission = benchmarked(owner, {"n=2^20": 0.5, "n=2^22": 1.0})
    assert api_as(other_user).get(f"/api/v1/submissions/{submission.pk}").status_code == 404


def test_a_ranked_result_and_its_cases_show_their_speed_of_light(owner: Any, api_as: Any, local_pool: Any) -> None:
    submission = ranked(owner, 2.0)
    body = api_as(owner).get(f"/api/v1/submissions/{submission.pk}").json()
    expected = 100 * host_floor_ms(3000017) / 2.0
    assert body["ranked"]["speed_of_light"]["percent"] == pytest.approx(expected)
    assert body["ranked"]["cases"][0]["speed_of_light"] == {
        "floor_ms": pytest.approx(host_floor_ms(3000017)), "percent": pytest.approx(expected), "peak_type": "fp32",
        "bound": "memory"}


def test_the_leaderboard_shows_each_entrys_speed_of_light(owner: Any, other_user: Any, client: Any,
                                                          local_pool: Any) -> None:
    ranked(owner, 2.0)
    ranked(other_user, 3.0)
    rows = client.get("/api/v1/problems/vector-add/leaderboard").json()["rows"]
    assert [r["user"] for r in rows] == ["owner", "other"]
    assert [r["speed_of_light"]["percent"] for r in rows] == [
        pytest.approx(100 * host_floor_ms(3000017) / 2.0), pytest.approx(100 * host_floor_ms(3000017) / 3.0)]


def test_problems_show_the_best_speed_of_light_per_pool(owner: Any, other_user: Any, api_as: Any,
                                                        local_pool: Any) -> None:
    ranked(owner, 3.0)
    ranked(other_user, 2.0)
    listed = {p["slug"]: p for p in api_as(owner).get("/api/v1/problems").json()}
    [best] = listed["vector-add"]["best_speed_of_light"]
    assert best["pool"] == "local"
    assert best["score_ms"] == 2.0
    assert best["percent"] == pytest.approx(100 * host_floor_ms(3000017) / 2.0)
    assert best["bound"] == "memory"
    assert listed["gemm-fp8"]["best_speed_of_light"] == []
    detail = api_as(owner).get("/api/v1/problems/vector-add").json()
    assert detail["best_speed_of_light"] == listed["vector-add"]["best_speed_of_light"]

"""The online bound on pre-warming (bench/sim/online_bound.py): what issue 42's wait goal costs at
least, and that on the steady and contest traces it is over the goal's 1.6x for every policy."""

from __future__ import annotations

import random

import pytest

from bench.sim.online_bound import least_billed_seconds, online_bound_seconds
from bench.sim.optimum import offline_seconds
from bench.sim.traces import DAY, JobLengths, Trace, contest, diurnal, steady

GOAL_RATIO = 1.6  # issue 42: p95 wait <= 60 s at <= 1.6x the offline optimum
COLD_START = (300.0, 420.0)  # costsim's default cloud


def test_a_constant_rate_needs_a_vm_for_the_share_of_the_time() -> None:
    assert least_billed_seconds(lambda t: 8.0, DAY, share=0.95) == pytest.approx(0.95 * DAY)
    assert least_billed_seconds(lambda t: 8.0, DAY, share=0.0) == 0.0


def test_the_busiest_moments_are_billed_first() -> None:
    """Half the day at 9 jobs/h, half at 1: the busy half carries 90 % of arrivals, so 90 % costs
    half a day and 95 % a twentieth of the quiet half more."""
    def rate(t: float) -> float:
        return 9.0 if t < DAY / 2 else 1.0

    assert least_billed_seconds(rate, DAY, share=0.90) == pytest.approx(DAY / 2)
    assert least_billed_seconds(rate, DAY, share=0.95) == pytest.approx(DAY / 2 + 0.5 * DAY / 2)


def test_no_bound_where_the_argument_does_not_hold() -> None:
    assert online_bound_seconds(None, DAY, cold_start_low_s=300) is None  # not a Poisson trace
    assert online_bound_seconds(lambda t: 8.0, DAY, cold_start_low_s=45) is None  # a cold start can beat 60 s
    with pytest.raises(ValueError):
        least_billed_seconds(lambda t: 8.0, DAY, share=1.5)


@pytest.fixture(scope="module")
def lengths() -> JobLengths:
    return JobLengths()


def _ratio(trace: Trace) -> float:
    bound = online_bound_seconds(trace.rate_per_h, trace.span_s, cold_start_low_s=COLD_START[0])
    assert bound is not None
    return bound / offline_seconds(trace, COLD_START)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_steady_and_contest_put_the_wait_goal_out_of_every_online_policys_reach(lengths: JobLengths,
                                                                                 seed: int) -> None:
    """costsim's default steady (8 jobs/h) and contest (2/h, rush to 120/h) weeks, as `--seed N`
    draws them: the least any online policy pays for p95 <= 60 s is over 1.6x the offline optimum;
    diurnal's is under it."""
    week = 7 * DAY
    steady_trace = steady(rng=random.Random(f"{seed}:steady"), lengths=lengths, span_s=week, rate_per_h=8.0, users=30)
    contest_trace = contest(rng=random.Random(f"{seed}:contest"), lengths=lengths, span_s=week,
                            background_per_h=2.0, peak_per_h=120.0, users=30)
    diurnal_trace = diurnal(rng=random.Random(f"{seed}:diurnal"), lengths=lengths, span_s=week, peak_per_h=24.0,
                            users=30)
    assert _ratio(steady_trace) > GOAL_RATIO
    assert _ratio(contest_trace) > 2 * GOAL_RATIO
    assert _ratio(diurnal_trace) < GOAL_RATIO

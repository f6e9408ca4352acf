"""The parts a verdict and a score rest on: comparing outputs with the reference (tolerance,
exactness, NaN poison, shapes, the first mismatch named) and the benchmark statistics."""

from __future__ import annotations

import math
import statistics

import ml_dtypes
import numpy as np
import pytest

from agent.judging.stats import geometric_mean, summarize
from agent.judging.verify import SECRET_WRONG, compare
from agent.problems.bundle import Tolerance
from agent.problems.schema import ProblemError, parse_tolerance

# ---- compare -------------------------------------------------------------------------------------

FLOAT_TOL = Tolerance(rtol=1e-4, atol=1e-6)


def test_compare_accepts_values_within_tolerance():
    want = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    assert compare("c", want * np.float32(1 + 1e-5), want, FLOAT_TOL) is None
    assert compare("c", want.copy(), want, Tolerance(exact=True)) is None


def test_compare_names_the_first_mismatch_with_index_got_expected_and_count():
    want = np.arange(10, dtype=np.float32)
    got = want.copy()
    got[3], got[7] = 99.0, -1.0
    assert compare("c", got, want, FLOAT_TOL) == (
        "c[3] = 99 but expected 3: |got - expected| = 96 > bound 0.000301 = atol 1e-06 + rtol 0.0001 × 3 (0.0003); "
        "2 of 10 elements differ")


def test_a_low_precision_mismatch_states_its_error_and_the_bound_it_broke():
    """The bound is the check rule's, worked out at the expected value: atol, rtol x |expected| and
    ulps of the output's own type there, each with its value."""
    want = np.array([1.0, -5.75, 2.0], dtype=ml_dtypes.bfloat16)
    got = np.array([1.0, -5.8125, 2.0], dtype=ml_dtypes.bfloat16)
    assert compare("O", got, want, Tolerance(ulps=1, atol=0.016)) == (
        "O[1] = -5.8125 but expected -5.75: |got - expected| = 0.0625 > bound 0.04725 = atol 0.016 + 1 ulp of "
        "bfloat16 at 5.75 (0.03125); 1 of 3 elements differ")
    further = np.array([1.0, -5.875, 2.0], dtype=ml_dtypes.bfloat16)
    assert compare("O", further, want, Tolerance(ulps=2, rtol=1e-3)) == (
        "O[1] = -5.875 but expected -5.75: |got - expected| = 0.125 > bound 0.06825 = rtol 0.001 × 5.75 "
        "(0.00575) + 2 ulps of bfloat16 at 5.75 (2 × 0.03125); 1 of 3 elements differ")


def test_compare_gives_a_multi_dimensional_index():
    want = np.zeros((3, 4), dtype=np.float32)
    got = want.copy()
    got[2, 1] = 0.5
    assert compare("out", got, want, FLOAT_TOL).startswith("out[2, 1] = 0.5 but expected 0:")


def test_compare_says_when_an_element_still_holds_the_nan_poison():
    want = np.ones(4, dtype=np.float32)
    got = want.copy()
    got[1:] = np.nan
    message = compare("c", got, want, FLOAT_TOL)
    assert message == ("c[1] = nan (never written: it still holds the poison value) but expected 1; "
                       "3 of 4 elements differ (rtol 0.0001, atol 1e-06)")


def test_compare_refuses_inf_and_nan_where_numbers_are_expected():
    want = np.ones(3, dtype=np.float32)
    assert compare("c", np.array([1, np.inf, 1], dtype=np.float32), want, FLOAT_TOL).startswith("c[1] = inf")
    assert compare("c", np.array([1, 1, -np.inf], dtype=np.float32), want, FLOAT_TOL).startswith("c[2] = -inf")


def test_compare_reports_a_shape_mismatch():
    want = np.zeros((4, 3), dtype=np.float32)
    assert compare("out", np.zeros((3, 4), dtype=np.float32), want, FLOAT_TOL) == \
        "out has shape (3, 4), expected (4, 3)"


def test_compare_checks_integers_exactly_whatever_the_tolerance():
    want = np.array([10, 20, 30], dtype=np.int32)
    got = np.array([10, 21, 30], dtype=np.int32)
    loose = Tolerance(rtol=0.5, atol=5)
    assert compare("hist", got, want, loose) == \
        "hist[1] = 21 but expected 20; 1 of 3 elements differ (exact comparison)"
    poisoned = np.frombuffer(b"\xa5" * 12, dtype=np.int32).copy()
    assert "(never written: it still holds the poison value)" in compare("hist", poisoned, want, loose)


def test_compare_exact_floats_allow_no_rounding():
    want = np.array([1.0, 2.0], dtype=np.float32)
    got = np.nextafter(want, np.float32(3))
    # 7 digits would print "1 but expected 1": an exact check shows every digit instead.
    assert compare("out", got, want, Tolerance(exact=True)).startswith(
        "out[0] = 1.0000001192092896 but expected 1.0; 2 of 2 elements differ")


# ---- statistics ----------------------------------------------------------------------------------

def bf16_truncated(x: np.ndarray) -> np.ndarray:
    """float32 to bfloat16 by dropping the low 16 bits: rounding toward zero."""
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32).astype(ml_dtypes.bfloat16)


def test_a_bias_rule_refuses_bfloat16_rounded_toward_zero_that_every_element_bound_lets_through():
    exact = np.random.default_rng(3).standard_normal(8192).astype(np.float32)
    want = exact.astype(ml_dtypes.bfloat16)  # to nearest even, as the judge rounds the reference
    rule = Tolerance(ulps=1, bias=0.25)
    truncated = bf16_truncated(exact)
    assert compare("out", truncated, want, Tolerance(ulps=1)) is None  # each element is within an ulp
    message = compare("out", truncated, want, rule)
    assert message is not None and "toward zero" in message and "8192 elements" in message
    assert compare("out", truncated, want, rule, reveal=False) == SECRET_WRONG
    assert compare("out", want.copy(), want, rule) is None
    # An honest kernel's float32 value, a little off each way, rounds either side of the reference's.
    noisy = (exact * (1 + np.float32(2.0**-10) * np.sign(np.sin(np.arange(8192))))).astype(ml_dtypes.bfloat16)
    assert compare("out", noisy, want, rule) is None
    # Too few elements to tell: the bias is not judged.
    assert compare("out", truncated[:4000], want[:4000], rule) is None


def test_a_bias_needs_ulps_and_cannot_be_negative():
    assert parse_tolerance({"ulps": 2, "bias": 0.25}) == Tolerance(ulps=2, bias=0.25)
    with pytest.raises(ProblemError, match="needs ulps"):
        parse_tolerance({"rtol": 1e-3, "atol": 0, "bias": 0.25})
    with pytest.raises(ProblemError, match="negative"):
        parse_tolerance({"ulps": 1, "bias": -1})


def test_summarize_reports_runs_mean_median_spread_and_throughput():
    stats = summarize([1.0, 2.0, 3.0, 4.0], flops=2e6, nbytes=4e6)
    assert (stats.runs, stats.mean_ms, stats.median_ms, stats.min_ms, stats.max_ms) == (4, 2.5, 2.5, 1.0, 4.0)
    assert stats.std_ms == pytest.approx(statistics.stdev([1, 2, 3, 4]))
    assert stats.rel_stderr == pytest.approx(stats.std_ms / 2 / 2.5)
    assert stats.gflops == pytest.approx(0.8)
    assert stats.gbps == pytest.approx(1.6)
    assert set(stats.as_dict()) >= {"runs", "mean_ms", "median_ms", "std_ms", "min_ms", "max_ms", "gflops", "gbps"}


def test_summarize_handles_one_run_no_flops_and_no_runs():
    one = summarize([2.0], flops=0, nbytes=8e6)
    assert one.std_ms == 0.0
    assert one.rel_stderr == 0.0
    assert one.gflops is None
    assert one.gbps == pytest.approx(4.0)
    with pytest.raises(ValueError):
        summarize([], flops=1, nbytes=1)


def test_geometric_mean_is_the_score_and_needs_positive_times():
    assert geometric_mean([1.0, 4.0]) == pytest.approx(2.0)
    assert geometric_mean([2.0, 8.0, 4.0]) == pytest.approx(4.0)
    assert geometric_mean([0.5]) == pytest.approx(0.5)
    assert geometric_mean([1e-3, 1e3]) == pytest.approx(1.0)
    for bad in ([], [1.0, 0.0], [-1.0, 2.0]):
        with pytest.raises(ValueError):
            geometric_mean(bad)
    assert not math.isnan(geometric_mean([1e-9] * 100))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compare_counts_and_finds_what_numpys_isclose_does_across_chunks(dtype, monkeypatch):
    """compare works a chunk at a time with its own isclose: the same verdict, count and first
    element as np.isclose over whole arrays, specials included, wherever the chunks are cut."""
    import agent.judging.verify as verify

    monkeypatch.setattr(verify, "CHUNK", 1000)  # 11 chunks, specials on both sides of several cuts
    rng = np.random.default_rng(7)
    want = rng.uniform(-2, 2, 10_007).astype(dtype)
    got = want * (1 + rng.uniform(-2e-4, 2e-4, want.size)).astype(dtype)  # about half out of rtol 1e-4
    specials = [np.nan, np.inf, -np.inf, 0.0, np.finfo(dtype).max, -np.finfo(dtype).max]
    for i in range(40):
        got[i * 225 + 999] = specials[i % len(specials)]
        want[i * 225 + 999] = specials[(i // len(specials) + i) % len(specials)]
    got[:3] = want[:3]  # the first mismatch lies beyond the first elements
    tol = Tolerance(rtol=1e-4, atol=1e-6)
    with np.errstate(over="ignore"):  # the largest doubles, subtracted
        bad = ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=tol.rtol, atol=tol.atol,
                          equal_nan=True)
    count, first = int(np.count_nonzero(bad)), int(np.flatnonzero(bad)[0])
    assert 0 < count < want.size
    assert compare("c", got, want, tol).startswith(f"c[{first}] = ")
    assert f"; {count} of {want.size} elements differ" in compare("c", got, want, tol)
    assert compare("c", want.copy(), want, tol) is None
    late = want.copy()
    late[-1] = np.nan
    assert compare("c", late, want, tol).startswith(f"c[{want.size - 1}] = nan")

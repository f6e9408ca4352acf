"""Cheaper kernels the catalogue's check rules must refuse (issue 39, item 1): each test models a
kernel that does less work or computes in a cheaper precision than the statement asks, in NumPy,
on the problem's own generator, and asserts the judge's comparison refuses it; and the property the
problem's derived rule rests on, checked on the generator over many draws."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem

F32 = np.float32


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def draw(problem: Problem, params: dict[str, int | float], seed: int) -> tuple[Case, dict[str, np.ndarray]]:
    case = Case("probe", ("host",), params)
    return case, problem.generate(case, np.random.default_rng(seed))


def verdict(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> str | None:
    """The judge's first mismatch (None: accepted), comparing in the output's declared type."""
    want = problem.expected(case, inputs)
    for name, expected in want.items():
        message = compare(name, np.asarray(got[name]).astype(expected.dtype), expected, problem.tolerance)
        if message:
            return message
    return None


# ---- defect 1: conv2d-nhwc-fp16 on int8 matrix cores ---------------------------------------------

def conv2d_f32(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The convolution as an implicit GEMM in float32 (NumPy's blocked float32 matmul: an order
    of its own), x NHWC and w KRSC, both already float32."""
    n, h, wd, c = x.shape
    padded = np.zeros((n, h + 2, wd + 2, c), dtype=F32)
    padded[:, 1:-1, 1:-1, :] = x
    cols = np.concatenate([padded[:, r:r + h, s:s + wd, :].reshape(-1, c) for r in range(3) for s in range(3)], axis=1)
    filt = w.reshape(w.shape[0], 9 * c)
    return (cols @ filt.T).reshape(n, h, wd, w.shape[0])


def per_tensor_int8(a: np.ndarray, *, power_of_two: bool) -> np.ndarray:
    """Symmetric per-tensor int8 quantization and back: what an int8 matrix-core kernel computes on.
    Its scale is amax / 127, or the power of two at or above it (which loses nothing on values of a
    binary grid that int8 holds: the old generator's k/64)."""
    scale = float(np.abs(a).max()) / 127.0
    if power_of_two:
        scale = 2.0 ** np.ceil(np.log2(scale))
    return (np.clip(np.rint(a / scale), -128, 127) * scale).astype(F32)


CONV = {"N": 2, "H": 14, "W": 14, "C": 64, "K": 64}


def test_conv2d_an_int8_or_fp8_kernel_is_refused_and_a_float32_one_is_exact() -> None:
    problem = load_problem("conv2d-nhwc-fp16")
    for seed in range(3):
        case, inputs = draw(problem, CONV, seed)
        x, w = inputs["input"].astype(F32), inputs["weight"].astype(F32)
        assert verdict(problem, case, inputs, {"output": conv2d_f32(x, w)}) is None
        for power_of_two in (False, True):
            xq, wq = (per_tensor_int8(t, power_of_two=power_of_two) for t in (x, w))
            int8 = conv2d_f32(xq, wq)
            assert verdict(problem, case, inputs, {"output": int8}) is not None, power_of_two
        e4m3 = ml_dtypes.float8_e4m3fn  # the OCP fp8 of H100 and MI355X; FNUZ's 3-bit mantissa alike
        fp8 = conv2d_f32(x.astype(e4m3).astype(F32), w.astype(e4m3).astype(F32))
        assert verdict(problem, case, inputs, {"output": fp8}) is not None


def test_conv2d_generator_keeps_every_float32_partial_sum_exact_on_every_case() -> None:
    """The exact rule's premise: products on a 2^-12 grid whose sum of magnitudes over the longest
    reduction (9 C) stays below 2^12, so every partial sum has at most 24 significant bits."""
    problem = load_problem("conv2d-nhwc-fp16")
    longest = 9 * max(case.params["C"] for case in every_case(problem))
    for seed in range(20):
        _, inputs = draw(problem, {"N": 1, "H": 4, "W": 4, "C": 128, "K": 16}, seed)
        x, w = inputs["input"].astype(np.float64), inputs["weight"].astype(np.float64)
        assert np.array_equal(x * 256, np.rint(x * 256)) and np.abs(x * 256).max() <= 255
        assert np.array_equal(w * 16, np.rint(w * 16)) and np.abs(w * 16).max() <= 7
        # ... and the inputs are not int8 values under any per-tensor scale: 9 bits with the sign.
        assert len(np.unique(x)) > 256
    assert longest * 255 * 7 < 2**24


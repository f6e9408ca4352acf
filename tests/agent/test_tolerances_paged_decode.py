"""The paged GQA decode problems' check rules (problem.yaml's derivations) hold on every case, float32
kernels with bfloat16 P pass, and reading the wrong KV head or the wrong fp8 format does not."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import (
    BF16_RN,
    F32,
    U,
    attention_bound,
    case_named,
    every_case,
    gamma,
    online_softmax,
    passes,
)

PAGE, D = 16, 128


def gather(inputs: dict[str, np.ndarray], b: int, Hkv: int) -> tuple[np.ndarray, np.ndarray]:
    n = int(inputs["seq_lens"][b])
    pages = inputs["block_table"][b]
    return (inputs["k_cache"][pages].reshape(-1, Hkv, D)[:n], inputs["v_cache"][pages].reshape(-1, Hkv, D)[:n])


def test_paged_gqa_decode_bound_holds_on_every_case_and_a_bf16_p_kernel_passes() -> None:
    problem = load_problem("paged-gqa-decode-bf16")
    for case in every_case(problem):
        Hq, Hkv, P, scale = (case.params[k] for k in ("Hq", "Hkv", "P", "scale"))
        assert scale <= 1 / math.sqrt(128) + 1e-4 and Hq % Hkv == 0 and Hq // Hkv <= 8, case.name
        assert PAGE * P <= 8192, case.name
        assert attention_bound(PAGE * P, scale * D * 2 * 1, merge=2) <= problem.tolerance.atol, case.name
    case, inputs = case_named(problem, "b5-hq16-hkv2-p9")
    B, Hq, Hkv = (case.params[k] for k in ("B", "Hq", "Hkv"))
    G = Hq // Hkv
    scale = float(F32(case.params["scale"]))
    right = np.empty((B, Hq, D), dtype=F32)
    wrong = np.empty((B, Hq, D), dtype=F32)
    for b in range(B):
        k, v = gather(inputs, b, Hkv)
        n = k.shape[0]
        for h in range(Hq):
            for out, kvh in ((right, h // G), (wrong, h % Hkv)):
                out[b, h] = online_softmax(inputs["q"][b, h : h + 1], k[:, kvh], v[:, kvh], scale,
                                           np.ones((1, n), dtype=bool), 16)[0]
    assert passes(problem, case, inputs, {"out": right})
    assert not passes(problem, case, inputs, {"out": wrong})


def fp8kv_bound(n: int, smax: float, vmax: float) -> float:
    """problem.yaml's bound of paged-gqa-decode-fp8kv: keys scaled one by one (130 u Smax per score,
    twice in s - max), values scaled one by one (u), then as attention_bound (a split sequence's
    merge included: two roundings more per term)."""
    eps_e = (7 * smax + 2) * U + 260 * U * smax
    eps = (1 + eps_e) * (1 + BF16_RN) * (1 + gamma(2 * n + 2)) * (1 + U) - 1
    return 2 * eps * vmax / (1 - eps) + U


def test_paged_gqa_fp8kv_bound_holds_and_a_kernel_that_scales_each_key_passes() -> None:
    problem = load_problem("paged-gqa-decode-fp8kv")
    module = problem.module
    for case in every_case(problem):
        p = case.params
        assert p["scale"] <= 1 / math.sqrt(128) + 1e-4 and p["Hq"] % p["Hkv"] == 0 and p["Hq"] // p["Hkv"] <= 8
        kmax, vmax = float(F32(p["k_scale"])) * module.K_MAX, float(F32(p["v_scale"])) * module.V_MAX
        assert kmax <= 1 and PAGE * p["P"] <= 8192, case.name
        smax = p["scale"] * D * 2 * kmax
        assert fp8kv_bound(PAGE * p["P"], smax, vmax) <= problem.tolerance.atol, case.name
    case, inputs = case_named(problem, "b5-hq16-hkv2-p9")
    B, Hq, Hkv = (case.params[k] for k in ("B", "Hq", "Hkv"))
    G = Hq // Hkv
    scale, k_scale, v_scale = (F32(case.params[k]) for k in ("scale", "k_scale", "v_scale"))
    right = np.empty((B, Hq, D), dtype=F32)
    ocp = np.empty((B, Hq, D), dtype=F32)
    for b in range(B):
        k8, v8 = gather(inputs, b, Hkv)
        n = k8.shape[0]
        for h in range(Hq):
            for out, fp8 in ((right, ml_dtypes.float8_e4m3fnuz), (ocp, ml_dtypes.float8_e4m3fn)):
                # a kernel that scales each key and value in float32 (a rounding each)
                k = k_scale * k8[:, h // G].view(np.uint8).view(fp8).astype(F32)
                v = v_scale * v8[:, h // G].view(np.uint8).view(fp8).astype(F32)
                out[b, h] = online_softmax(inputs["q"][b, h : h + 1], k, v, float(scale),
                                           np.ones((1, n), dtype=bool), 16)[0]
    assert passes(problem, case, inputs, {"out": right})
    assert not passes(problem, case, inputs, {"out": ocp})

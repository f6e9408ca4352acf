"""paged-gqa-decode-bf16's check rule (problem.yaml's derivation) holds on every case, a float32
kernel with bfloat16 P passes, and reading the wrong KV head does not."""

from __future__ import annotations

import math

import numpy as np

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import (
    F32,
    attention_bound,
    case_named,
    every_case,
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
        assert attention_bound(PAGE * P, scale * D * 2 * 1) <= problem.tolerance.atol, case.name
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

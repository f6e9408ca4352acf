import triton
import triton.language as tl


@triton.jit
def attention(q, k, v, o, lse, S, H, Hkv, qk_scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr):
    # One program: BLOCK_M queries of one (batch, head); all keys in blocks of BLOCK_N (no mask), an
    # online softmax (running maximum m and sum l, in base 2: qk_scale = log2(e) / sqrt(D)), P rounded
    # to bfloat16 for the P V product on the matrix cores.
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    hk = h // (H // Hkv)
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    d = tl.arange(0, D)
    q_rows = (b * S + offs_m).to(tl.int64) * H + h
    q_tile = tl.load(q + q_rows[:, None] * D + d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start_n in range(0, S, BLOCK_N):
        keys = start_n + offs_n
        kv_rows = (b * S + keys).to(tl.int64) * Hkv + hk
        k_tile = tl.load(k + kv_rows[None, :] * D + d[:, None], mask=keys[None, :] < S, other=0.0)  # D x BLOCK_N
        s = tl.dot(q_tile, k_tile) * qk_scale
        s = tl.where(keys[None, :] < S, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v_tile = tl.load(v + kv_rows[:, None] * D + d[None, :], mask=keys[:, None] < S, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v_tile)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o + q_rows[:, None] * D + d[None, :], out.to(tl.bfloat16), mask=offs_m[:, None] < S)
    # The bug: the base-2 log-sum-exp (as FlashAttention's Triton tutorial keeps it), not times ln 2.
    tl.store(lse + bh.to(tl.int64) * S + offs_m, m_i + tl.log2(l_i), mask=offs_m < S)


def solution(Q, K, V, O, LSE, B, S, H, Hkv, D):
    BLOCK_M, BLOCK_N = 64, 64
    qk_scale = 1.4426950408889634 / D ** 0.5
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    attention[grid](Q, K, V, O, LSE, S, H, Hkv, qk_scale, D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)

import triton
import triton.language as tl


@triton.jit
def attention(q, k, v, sinks, o, S, H, Hkv, W, qk_scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr):
    # One program: BLOCK_M queries of one (batch, head); only the blocks of BLOCK_N keys their windows
    # cover (query i sees i - W < j <= i), an online softmax in base 2 (qk_scale = log2(e) / sqrt(D)),
    # P rounded to bfloat16 for the P V product on the matrix cores. A row that sees no key of a block
    # keeps the maximum -inf; its exponentials are taken against 0, so they are 0, not NaN. The sink
    # joins at the end: the maximum becomes max(m, sink), and e^(sink - m) is added to l only.
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
    begin = tl.maximum(start_m - W + 1, 0) // BLOCK_N * BLOCK_N
    end = tl.minimum(start_m + BLOCK_M, S)
    for start_n in range(begin, end, BLOCK_N):
        keys = start_n + offs_n
        kv_rows = (b * S + keys).to(tl.int64) * Hkv + hk
        k_tile = tl.load(k + kv_rows[None, :] * D + d[:, None], mask=keys[None, :] < S, other=0.0)  # D x BLOCK_N
        s = tl.dot(q_tile, k_tile) * qk_scale
        visible = (keys[None, :] <= offs_m[:, None]) & (keys[None, :] > offs_m[:, None] - W) & (keys[None, :] < S)
        s = tl.where(visible, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        ref = tl.where(m_new == -float("inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - ref)
        p = tl.exp2(s - ref[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v_tile = tl.load(v + kv_rows[:, None] * D + d[None, :], mask=keys[:, None] < S, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v_tile)
        m_i = m_new
    sink = tl.load(sinks + h) * 1.4426950408889634  # base 2, as m
    m_f = tl.maximum(m_i, sink)
    rescale = tl.exp2(m_i - m_f)
    out = acc * (rescale / (l_i * rescale + tl.exp2(sink - m_f)))[:, None]
    tl.store(o + q_rows[:, None] * D + d[None, :], out.to(tl.bfloat16), mask=offs_m[:, None] < S)


def solution(Q, K, V, sinks, O, B, S, H, Hkv, D, W):  # noqa: E741 - the problem names its output O
    BLOCK_M, BLOCK_N = 64, 64
    qk_scale = 1.4426950408889634 / D ** 0.5
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    attention[grid](Q, K, V, sinks, O, S, H, Hkv, W, qk_scale, D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)

import triton
import triton.language as tl


@triton.jit
def decode(q, k_cache, v_cache, block_table, seq_lens, out, Hq, Hkv, P, scale, G_PAD: tl.constexpr):
    # One program per (sequence, KV head): its G query heads (padded to G_PAD >= 16 rows for tl.dot)
    # against one page of 16 tokens at a time, an online softmax over the pages (running maximum m,
    # sum l, output rescaled when m grows), the probabilities rounded to bfloat16 for P V.
    b = tl.program_id(0).to(tl.int64)
    kvh = tl.program_id(1)
    G = Hq // Hkv
    g = tl.arange(0, G_PAD)
    d = tl.arange(0, 128)
    t = tl.arange(0, 16)
    heads = (b * Hq + kvh * G + g) * 128
    qt = tl.load(q + heads[:, None] + d[None, :], mask=(g < G)[:, None], other=0.0)
    n = tl.load(seq_lens + b)
    m = tl.full((G_PAD,), -float("inf"), tl.float32)
    l = tl.zeros((G_PAD,), tl.float32)
    acc = tl.zeros((G_PAD, 128), tl.float32)
    for index in range(0, (n + 15) // 16):
        page = tl.load(block_table + b * P + index).to(tl.int64)
        rows = ((page * 16 + t) * Hkv + kvh) * 128  # every row of a listed page exists, past n too
        kt = tl.load(k_cache + rows[:, None] + d[None, :])
        vt = tl.load(v_cache + rows[:, None] + d[None, :])
        s = tl.dot(qt, tl.trans(kt)) * scale
        s = tl.where((index * 16 + t < n)[None, :], s, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp(m - m_new)  # 0 on the first page (m = -inf; every page holds a token)
        p = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), vt)
        m = m_new
    tl.store(out + heads[:, None] + d[None, :], (acc / l[:, None]).to(tl.bfloat16), mask=(g < G)[:, None])


def solution(q, k_cache, v_cache, block_table, seq_lens, out, B, Hq, Hkv, P, scale):
    decode[(B, Hkv)](q, k_cache, v_cache, block_table, seq_lens, out, Hq, Hkv, P, scale,
                     G_PAD=max(16, triton.next_power_of_2(Hq // Hkv)), num_warps=4)

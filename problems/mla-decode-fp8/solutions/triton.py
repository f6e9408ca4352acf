import triton
import triton.language as tl


@triton.jit
def mla_decode(q, kv_cache, block_table, seq_lens, out, H, P, qk_scale, kv_scale, BLOCK_H: tl.constexpr):
    # One program: BLOCK_H query heads of one sequence, over its pages of 64 cached tokens. A token
    # is 576 fp8 values c8: the first 512 are its value and the key's latent part, the last 64 the
    # key's rope part, so a score is q[:512] . c8[:512] + q[512:] . c8[512:] (exact), times
    # qk_scale = scale * kv_scale * log2(e). The fp8 tiles convert to bfloat16 exactly for tl.dot.
    # Online softmax in base 2, P rounded to bfloat16 for the P V8 product; kv_scale multiplies the
    # output once.
    b = tl.program_id(0)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    in_h = heads < H
    dl = tl.arange(0, 512)
    dr = 512 + tl.arange(0, 64)
    t = tl.arange(0, 64)
    q_rows = (b * H + heads) * 576
    q_lat = tl.load(q + q_rows[:, None] + dl[None, :], mask=in_h[:, None], other=0.0)
    q_rope = tl.load(q + q_rows[:, None] + dr[None, :], mask=in_h[:, None], other=0.0)
    n = tl.load(seq_lens + b)
    m_i = tl.full((BLOCK_H,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_H, 512), dtype=tl.float32)
    for page_index in range(0, tl.cdiv(n, 64)):
        page = tl.load(block_table + b * P + page_index).to(tl.int64)
        tokens = page_index * 64 + t
        live = tokens < n
        rows = page * 64 + t
        c_lat = tl.load(kv_cache + rows[None, :] * 576 + dl[:, None], mask=live[None, :], other=0.0)
        c_lat = c_lat.to(tl.float32).to(tl.bfloat16)  # 512 x 64
        c_rope = tl.load(kv_cache + rows[None, :] * 576 + dr[:, None], mask=live[None, :], other=0.0)
        c_rope = c_rope.to(tl.float32).to(tl.bfloat16)  # 64 x 64
        s = (tl.dot(q_lat, c_lat) + tl.dot(q_rope, c_rope)) * qk_scale
        s = tl.where(live[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v_tile = tl.trans(c_lat)  # 64 x 512: the values are the latent part
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v_tile)
        m_i = m_new
    o = acc * (kv_scale / l_i)[:, None]
    tl.store(out + (b * H + heads)[:, None] * 512 + dl[None, :], o.to(tl.bfloat16), mask=in_h[:, None])


def solution(q, kv_cache, block_table, seq_lens, out, B, H, P, scale, kv_scale):
    BLOCK_H = max(16, min(64, triton.next_power_of_2(H)))
    qk_scale = scale * kv_scale * 1.4426950408889634
    mla_decode[(B, triton.cdiv(H, BLOCK_H))](q, kv_cache, block_table, seq_lens, out, H, P, qk_scale, kv_scale,
                                             BLOCK_H=BLOCK_H, num_warps=8)

import triton
import triton.language as tl


@triton.jit
def attention(q, k, v, cu_q, cu_k, o, B, H, Hkv, qk_scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, BLOCK_B: tl.constexpr):
    # One program: BLOCK_M queries of one sequence and head. The programs are dealt out over the
    # sequences' tiles in order: the sequence b is the one whose tiles (cdiv(q_len, BLOCK_M) each,
    # summed in order) hold program_id(0); a spare program (past the last tile) masks everything out.
    # Keys in blocks of BLOCK_N as far as the tile's last query sees (query i sees keys
    # j <= i + k_len - q_len: bottom-right alignment), an online softmax in base 2 (qk_scale =
    # log2(e) / sqrt(D)), P rounded to bfloat16 for the P V product on the matrix cores.
    # Wrong on purpose: the keys and values read at the QUERIES' offsets, cu_q[b], as if K were packed
    # like Q (true only when every sequence is a whole prompt): a step with context reads other tokens.
    tile = tl.program_id(0)
    h = tl.program_id(1)
    hk = h // (H // Hkv)
    seqs = tl.arange(0, BLOCK_B)
    q_lens = tl.load(cu_q + seqs + 1, mask=seqs < B, other=0) - tl.load(cu_q + seqs, mask=seqs < B, other=0)
    tiles = (q_lens + BLOCK_M - 1) // BLOCK_M
    ends = tl.cumsum(tiles, axis=0)  # one past each sequence's last tile
    b = tl.sum((ends <= tile).to(tl.int32), axis=0)
    valid = b < B
    b = tl.minimum(b, B - 1)
    q_start = tl.load(cu_q + b)
    q_len = tl.where(valid, tl.load(cu_q + b + 1) - q_start, 0)
    k_start = tl.load(cu_q + b)  # the bug: cu_k + b
    k_len = tl.where(valid, tl.load(cu_k + b + 1) - k_start, 0)
    shift = k_len - q_len
    first_tile = tl.sum(tl.where(seqs == b, ends - tiles, 0), axis=0)
    offs_m = (tile - first_tile) * BLOCK_M + tl.arange(0, BLOCK_M)  # queries within the sequence
    offs_n = tl.arange(0, BLOCK_N)
    d = tl.arange(0, D)
    q_rows = (q_start + offs_m).to(tl.int64) * H + h
    q_tile = tl.load(q + q_rows[:, None] * D + d[None, :], mask=offs_m[:, None] < q_len, other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    end = tl.minimum((tile - first_tile + 1) * BLOCK_M + shift, k_len)
    for start_n in range(0, end, BLOCK_N):
        keys = start_n + offs_n
        kv_rows = (k_start + keys).to(tl.int64) * Hkv + hk
        k_tile = tl.load(k + kv_rows[None, :] * D + d[:, None], mask=keys[None, :] < k_len, other=0.0)  # D x BLOCK_N
        s = tl.dot(q_tile, k_tile) * qk_scale
        s = tl.where((keys[None, :] <= offs_m[:, None] + shift) & (keys[None, :] < k_len), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v_tile = tl.load(v + kv_rows[:, None] * D + d[None, :], mask=keys[:, None] < k_len, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v_tile)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o + q_rows[:, None] * D + d[None, :], out.to(tl.bfloat16), mask=offs_m[:, None] < q_len)


def solution(Q, K, V, cu_seqlens_q, cu_seqlens_k, O, B, Tq, Tk, H, Hkv, D):  # noqa: E741 - the problem names its output O
    BLOCK_M, BLOCK_N = 64, 64
    qk_scale = 1.4426950408889634 / D ** 0.5
    # sum_b cdiv(q_len_b, BLOCK_M) <= cdiv(Tq, BLOCK_M) + B - 1: every sequence's tiles, and a few spare.
    grid = (triton.cdiv(Tq, BLOCK_M) + B, H)
    attention[grid](Q, K, V, cu_seqlens_q, cu_seqlens_k, O, B, H, Hkv, qk_scale, D=D, BLOCK_M=BLOCK_M,
                    BLOCK_N=BLOCK_N, BLOCK_B=max(16, triton.next_power_of_2(B)), num_warps=4)

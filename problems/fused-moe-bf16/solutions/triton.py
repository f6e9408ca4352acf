import triton
import triton.language as tl


@triton.jit
def routing(topk_ids, topk_weights, rows, in_rows, e, topk, TOPK: tl.constexpr):
    """For the tile's tokens and expert e: whether each uses it, in which slot j, with which weight."""
    js = tl.arange(0, TOPK)
    mask = in_rows[:, None] & (js[None, :] < topk)
    ids = tl.load(topk_ids + rows[:, None] * topk + js[None, :], mask=mask, other=-1)
    match = ids == e
    uses = tl.sum(match.to(tl.int32), axis=1) > 0
    slot = tl.sum(tl.where(match, js[None, :], 0), axis=1)
    weights = tl.load(topk_weights + rows[:, None] * topk + js[None, :], mask=mask & match, other=0.0)
    return uses, slot, tl.sum(weights, axis=1)


@triton.jit
def expert_range(topk_ids, rows, in_rows, topk, TOPK: tl.constexpr):
    """The lowest and highest expert the tile's tokens use (the experts between are checked one by one)."""
    js = tl.arange(0, TOPK)
    mask = in_rows[:, None] & (js[None, :] < topk)
    ids = tl.load(topk_ids + rows[:, None] * topk + js[None, :], mask=mask, other=-1)
    return tl.min(tl.where(mask, ids, 2147483647)), tl.max(ids)


@triton.jit
def gate_up(x, w1, topk_ids, topk_weights, act, T, H, I, E, topk, BLOCK_T: tl.constexpr, BLOCK_I: tl.constexpr,
            BLOCK_K: tl.constexpr, TOPK: tl.constexpr):
    # BLOCK_T tokens x BLOCK_I columns of I: for each expert one of the tokens uses, the gate and up
    # tiles (rows n and I + n of w1[e]) with the other tokens' rows masked to zero, then
    # act[t, j, n] = bf16(SiLU(g) * u) where topk_ids[t, j] == e.
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)
    ks = tl.arange(0, BLOCK_K)
    in_rows, in_cols = rows < T, cols < I
    first, last = expert_range(topk_ids, rows, in_rows, topk, TOPK)
    for e in range(first, last + 1):
        uses, slot, _ = routing(topk_ids, topk_weights, rows, in_rows, e, topk, TOPK)
        if tl.sum(uses.to(tl.int32), axis=0) > 0:
            g = tl.zeros((BLOCK_T, BLOCK_I), dtype=tl.float32)
            u = tl.zeros((BLOCK_T, BLOCK_I), dtype=tl.float32)
            for k in range(0, H, BLOCK_K):
                in_k = (k + ks) < H
                x_tile = tl.load(x + rows[:, None].to(tl.int64) * H + (k + ks)[None, :],
                                 mask=uses[:, None] & in_k[None, :], other=0.0)
                # w1[e] rows are contiguous along H: the tiles, read transposed, are BLOCK_K x BLOCK_I.
                w_rows = w1 + (e * 2 * I + cols[None, :]).to(tl.int64) * H + (k + ks)[:, None]
                w_mask = in_k[:, None] & in_cols[None, :]
                g = tl.dot(x_tile, tl.load(w_rows, mask=w_mask, other=0.0), g)
                u = tl.dot(x_tile, tl.load(w_rows + I * H, mask=w_mask, other=0.0), u)
            h = g / (1.0 + tl.exp(-g)) * u
            tl.store(act + ((rows * topk + slot)[:, None].to(tl.int64) * I + cols[None, :]), h.to(tl.bfloat16),
                     mask=uses[:, None] & in_cols[None, :])


@triton.jit
def down(act, w2, topk_ids, topk_weights, out, T, H, I, E, topk, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
         BLOCK_K: tl.constexpr, TOPK: tl.constexpr):
    # BLOCK_T tokens x BLOCK_D columns of H: for each expert one of the tokens uses, y = act[t, j] w2[e]^T
    # (other tokens' rows masked to zero), added times the token's weight; out rounded once.
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    ks = tl.arange(0, BLOCK_K)
    in_rows, in_cols = rows < T, cols < H
    acc = tl.zeros((BLOCK_T, BLOCK_D), dtype=tl.float32)
    first, last = expert_range(topk_ids, rows, in_rows, topk, TOPK)
    for e in range(first, last + 1):
        uses, slot, weight = routing(topk_ids, topk_weights, rows, in_rows, e, topk, TOPK)
        if tl.sum(uses.to(tl.int32), axis=0) > 0:
            y = tl.zeros((BLOCK_T, BLOCK_D), dtype=tl.float32)
            for k in range(0, I, BLOCK_K):
                in_k = (k + ks) < I
                a_tile = tl.load(act + (rows * topk + slot)[:, None].to(tl.int64) * I + (k + ks)[None, :],
                                 mask=uses[:, None] & in_k[None, :], other=0.0)
                w_tile = tl.load(w2 + (e * H + cols[None, :]).to(tl.int64) * I + (k + ks)[:, None],
                                 mask=in_k[:, None] & in_cols[None, :], other=0.0)
                y = tl.dot(a_tile, w_tile, y)  # bf16 x bf16 -> fp32 on the matrix cores
            acc += weight[:, None] * y
    tl.store(out + rows[:, None].to(tl.int64) * H + cols[None, :], acc.to(tl.bfloat16),
             mask=in_rows[:, None] & in_cols[None, :])


def solution(x, w1, w2, topk_ids, topk_weights, act, out, T, H, I, E, topk):
    # gate_up holds two 64 x 128 weight tiles, down one 128 x 128: 32 and 40 KiB of LDS.
    BLOCK_T, BLOCK_I, BLOCK_D = 32, 128, 128
    TOPK = triton.next_power_of_2(topk)
    gate_up[(triton.cdiv(T, BLOCK_T), triton.cdiv(I, BLOCK_I))](
        x, w1, topk_ids, topk_weights, act, T, H, I, E, topk, BLOCK_T=BLOCK_T, BLOCK_I=BLOCK_I, BLOCK_K=64,
        TOPK=TOPK)
    down[(triton.cdiv(T, BLOCK_T), triton.cdiv(H, BLOCK_D))](
        act, w2, topk_ids, topk_weights, out, T, H, I, E, topk, BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, BLOCK_K=128,
        TOPK=TOPK)

import triton
import triton.language as tl


@triton.jit
def offsets_and_rows(topk_ids, expert_offsets, row_of, pairs, E, BLOCK: tl.constexpr, BLOCK_E: tl.constexpr):
    # One program, two passes over the T * topk pairs in their order (t * topk + j). First the count
    # of each expert (tl.histogram), whose exclusive scan is expert_offsets. Then each pair's row:
    # its expert's offset, plus the pairs of that expert before it (in earlier blocks: a running
    # count per expert; in its own block: a scan of the one-hot block along the pairs), so equal
    # experts keep their order (stable).
    experts = tl.arange(0, BLOCK_E)
    counts = tl.zeros((BLOCK_E,), dtype=tl.int32)
    for start in range(0, pairs, BLOCK):
        i = start + tl.arange(0, BLOCK)
        ids = tl.load(topk_ids + i, mask=i < pairs, other=0)
        counts += tl.histogram(ids, BLOCK_E, mask=i < pairs)
    starts = tl.cumsum(counts, axis=0) - counts
    tl.store(expert_offsets + experts, starts, mask=experts < E)
    tl.store(expert_offsets + E, tl.sum(counts, axis=0))
    seen = starts
    for start in range(0, pairs, BLOCK):
        i = start + tl.arange(0, BLOCK)
        ids = tl.load(topk_ids + i, mask=i < pairs, other=-1)
        one_hot = (ids[:, None] == experts[None, :]).to(tl.int32)  # BLOCK x BLOCK_E
        before = tl.cumsum(one_hot, axis=0) - one_hot
        row = tl.sum(one_hot * (before + seen[None, :]), axis=1)
        tl.store(row_of + i, row, mask=i < pairs)
        seen += tl.sum(one_hot, axis=0)


@triton.jit
def scatter(x, row_of, x_sorted, pairs, H, topk, BLOCK_P: tl.constexpr, BLOCK_H: tl.constexpr):
    # BLOCK_P pairs: token t's row of x copied to each of its rows of x_sorted.
    i = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    rows = tl.load(row_of + i, mask=i < pairs, other=0).to(tl.int64)
    tokens = (i // topk).to(tl.int64)
    for h0 in range(0, H, BLOCK_H):
        h = h0 + tl.arange(0, BLOCK_H)
        mask = (i[:, None] < pairs) & (h[None, :] < H)
        values = tl.load(x + tokens[:, None] * H + h[None, :], mask=mask)
        tl.store(x_sorted + rows[:, None] * H + h[None, :], values, mask=mask)


def solution(x, topk_ids, x_sorted, expert_offsets, row_of, T, H, E, topk):
    pairs = T * topk
    offsets_and_rows[(1,)](topk_ids, expert_offsets, row_of, pairs, E, BLOCK=256,
                           BLOCK_E=triton.next_power_of_2(E), num_warps=8)
    BLOCK_P, BLOCK_H = 128, 512
    scatter[(triton.cdiv(pairs, BLOCK_P),)](x, row_of, x_sorted, pairs, H, topk, BLOCK_P=BLOCK_P, BLOCK_H=BLOCK_H)

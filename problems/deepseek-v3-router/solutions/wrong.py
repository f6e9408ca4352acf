import triton
import triton.language as tl


@triton.jit
def gate(x, w, bias, weights, ids, T, H, BLOCK_T: tl.constexpr, BLOCK_K: tl.constexpr):
    # BLOCK_T tokens per program: their 256 logits by tl.dot (float32), then DeepSeek-V3's routing on the
    # tile. tl.argmax takes the first of equal maxima, so ties go to the lower group and expert index.
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    experts = tl.arange(0, 256)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_T, 256), dtype=tl.float32)
    for k in range(0, H, BLOCK_K):
        x_tile = tl.load(x + rows[:, None] * H + (k + ks)[None, :],
                         mask=(rows[:, None] < T) & ((k + ks)[None, :] < H), other=0.0)
        wt_tile = tl.load(w + experts[None, :] * H + (k + ks)[:, None],  # W^T's BLOCK_K x 256 tile
                          mask=(k + ks)[:, None] < H, other=0.0)
        acc = tl.dot(x_tile, wt_tile, acc)
    score = 1.0 / (1.0 + tl.exp(-acc))
    choice = score + tl.load(bias + experts)[None, :]
    # The bug: a group scored by its largest choice alone (DeepSeek-V2's group-limited greedy), not the sum
    # of its two largest.
    group = tl.max(tl.reshape(choice, (BLOCK_T, 8, 32)), axis=2)
    groups = tl.arange(0, 8)
    allowed = tl.zeros((BLOCK_T, 256), dtype=tl.int1)
    for _ in range(4):
        best = tl.argmax(group, axis=1)
        group = tl.where(groups[None, :] == best[:, None], -float("inf"), group)
        allowed = allowed | (experts[None, :] // 32 == best[:, None])
    candidates = tl.where(allowed, choice, -float("inf"))
    chosen = tl.zeros((BLOCK_T, 256), dtype=tl.int1)
    for _ in range(8):
        best = tl.argmax(candidates, axis=1)
        hit = experts[None, :] == best[:, None]
        candidates = tl.where(hit, -float("inf"), candidates)
        chosen = chosen | hit
    picked = tl.where(chosen, score, 0.0)
    weight = picked / tl.sum(picked, axis=1)[:, None] * 2.5
    slot = tl.cumsum(chosen.to(tl.int32), axis=1) - 1  # ids in increasing order
    where = rows[:, None] * 8 + slot
    inside = chosen & (rows[:, None] < T)
    tl.store(ids + where, (experts[None, :] + tl.zeros((BLOCK_T, 256), dtype=tl.int32)), mask=inside)
    tl.store(weights + where, weight, mask=inside)


def solution(x, W, bias, weights, ids, T, H):
    BLOCK_T, BLOCK_K = 16, 64
    gate[(triton.cdiv(T, BLOCK_T),)](x, W, bias, weights, ids, T, H, BLOCK_T=BLOCK_T, BLOCK_K=BLOCK_K, num_warps=8)

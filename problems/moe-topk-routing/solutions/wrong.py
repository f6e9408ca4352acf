import triton
import triton.language as tl


@triton.jit
def route(logits, weights, ids, T, E, topk, renormalize, BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr):
    # BLOCK_T tokens at once: a softmax over each row of E logits, then topk rounds of "the largest
    # left, the lowest expert among equals" (argmax's tie_break_left), each taken out of the row.
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    e = tl.arange(0, BLOCK_E)
    valid = (t[:, None] < T) & (e[None, :] < E)
    x = tl.where(e[None, :] < E, tl.load(logits + t[:, None] * E + e[None, :], mask=valid, other=0.0), -float("inf"))
    p = tl.exp(x - tl.max(x, axis=1)[:, None])  # masked experts: exp(-inf) = 0
    total = tl.sum(p, axis=1)
    left = x
    chosen_sum = tl.zeros((BLOCK_T,), dtype=tl.float32)
    for j in range(topk):
        best = tl.argmax(left, axis=1, tie_break_left=True)
        hit = e[None, :] == best[:, None]
        chosen_sum += tl.sum(tl.where(hit, p, 0.0), axis=1)
        left = tl.where(hit, -float("inf"), left)
        tl.store(ids + t * topk + j, best.to(tl.int32), mask=t < T)
    # Second pass over the same choices for the weights: the renormalized ones need the sum first.
    # The bug: always renormalized over the chosen experts, whatever `renormalize` says.
    divisor = chosen_sum
    left = x
    for j in range(topk):
        best = tl.argmax(left, axis=1, tie_break_left=True)
        hit = e[None, :] == best[:, None]
        tl.store(weights + t * topk + j, tl.sum(tl.where(hit, p, 0.0), axis=1) / divisor, mask=t < T)
        left = tl.where(hit, -float("inf"), left)


def solution(logits, weights, ids, T, E, topk, renormalize):
    BLOCK_T = 128
    BLOCK_E = triton.next_power_of_2(E)
    route[(triton.cdiv(T, BLOCK_T),)](logits, weights, ids, T, E, topk, renormalize,
                                      BLOCK_T=BLOCK_T, BLOCK_E=BLOCK_E)

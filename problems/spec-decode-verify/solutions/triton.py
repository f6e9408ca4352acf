import triton
import triton.language as tl


@triton.jit
def row_argmax(logits, output_tokens, V, BLOCK: tl.constexpr):
    # One row of logits per program (every position of every sequence): the first maximum, block by
    # block; a later block replaces it only with a strictly larger value (its indices are higher).
    row = tl.program_id(0).to(tl.int64)
    base = logits + row * V
    best = tl.full((), -float("inf"), tl.float32)
    at = tl.full((), 0, tl.int32)
    for start in range(0, V, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(base + offsets, mask=offsets < V, other=-float("inf")).to(tl.float32)
        top = tl.max(x, axis=0)
        first = tl.min(tl.where(x == top, offsets, V), axis=0)
        at = tl.where(top > best, first, at)
        best = tl.maximum(best, top)
    tl.store(output_tokens + row, at)


@triton.jit
def accept(draft_tokens, accepted, output_tokens, K, KB: tl.constexpr):
    # One sequence per program: the first position where the target's token differs from the
    # draft's (K if none) is the count accepted; the positions after it become -1.
    b = tl.program_id(0).to(tl.int64)
    i = tl.arange(0, KB)
    target = tl.load(output_tokens + b * (K + 1) + i, mask=i < K + 1, other=0)
    draft = tl.load(draft_tokens + b * K + i, mask=i < K, other=-1)
    count = tl.min(tl.where((target != draft) | (i >= K), i, K), axis=0)
    tl.store(accepted + b, count)
    tl.store(output_tokens + b * (K + 1) + i, tl.where(i <= count, target, -1), mask=i < K + 1)


def solution(target_logits, draft_tokens, accepted, output_tokens, B, K, V):
    row_argmax[(B * (K + 1),)](target_logits, output_tokens, V, BLOCK=4096, num_warps=8)
    accept[(B,)](draft_tokens, accepted, output_tokens, K, KB=triton.next_power_of_2(K + 1))

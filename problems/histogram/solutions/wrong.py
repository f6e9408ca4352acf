import triton
import triton.language as tl


@triton.jit
def clear(hist, bins, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(hist + offsets, tl.zeros((BLOCK,), dtype=tl.int32), mask=offsets < bins)


@triton.jit
def count(data, hist, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(data + offsets, mask=mask, other=0)
    # The bug: a plain store of 1 where a count must be added: many equal values count once.
    tl.store(hist + values, tl.full((BLOCK,), 1, tl.int32), mask=mask)


def solution(data, hist, n, bins):
    BLOCK = 4096
    clear[(triton.cdiv(bins, BLOCK),)](hist, bins, BLOCK=BLOCK)  # the output holds the judge's poison
    count[(triton.cdiv(n, BLOCK),)](data, hist, n, BLOCK=BLOCK, num_warps=8)

import triton
import triton.language as tl


@triton.jit
def softmax_rows(x, y, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < cols
    v = tl.load(x + row * cols + offsets, mask=mask, other=-float("inf"))
    e = tl.exp(v)  # the bug: no row maximum subtracted, so rows of values near 1000 overflow to inf
    tl.store(y + row * cols + offsets, e / tl.sum(e, axis=0), mask=mask)


def solution(input, output, rows, cols):
    softmax_rows[(rows,)](input, output, cols, BLOCK=triton.next_power_of_2(cols))

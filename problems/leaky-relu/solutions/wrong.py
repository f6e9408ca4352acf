import triton
import triton.language as tl


@triton.jit
def leaky_relu(x, alpha, y, count, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < count
    v = tl.load(x + offsets, mask=mask)
    tl.store(y + offsets, tl.where(v >= 0, v, v * 0.01), mask=mask)  # the bug: alpha ignored


def solution(input, alpha, output, n, m):
    BLOCK = 4096
    count = n * m
    leaky_relu[(triton.cdiv(count, BLOCK),)](input, alpha, output, count, BLOCK=BLOCK)

import triton
import triton.language as tl


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets <= n  # off by one: the element at n, past the end, is read and written
    tl.store(c + offsets, tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask), mask=mask)


def solution(a, b, c, n):
    BLOCK = 1024
    vector_add[(triton.cdiv(n, BLOCK),)](a, b, c, n, BLOCK=BLOCK)

import triton
import triton.language as tl


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(a + offsets, mask=mask)
    y = tl.load(b + offsets, mask=mask)
    tl.store(c + offsets, x + y, mask=mask)


def solution(a, b, c, n):
    # a, b, c: tensor-like buffers (float32); n: an int. One program per BLOCK elements.
    BLOCK = 4096
    vector_add[(triton.cdiv(n, BLOCK),)](a, b, c, n, BLOCK=BLOCK)

# A compile-time bomb: a static_range of a billion steps is unrolled by Triton's compiler. The
# compile's time limit stops it.
import triton
import triton.language as tl


@triton.jit
def add(a, b, c, n, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(a + offsets, mask=mask)
    for _ in tl.static_range(STEPS):
        x = x + 0.0
    tl.store(c + offsets, x + tl.load(b + offsets, mask=mask), mask=mask)


def solution(a, b, c, n):
    add[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024, STEPS=1_000_000_000)

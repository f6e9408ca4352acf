# An autotune list of 4096 configurations: every one is a compile on a GPU. Refused when the file
# is loaded, before anything compiles.
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1 << (i % 12 + 4)}, num_warps=1 << (i % 4)) for i in range(4096)],
                 key=["n"])
@triton.jit
def add(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c + offsets, tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask), mask=mask)


def solution(a, b, c, n):
    add[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](a, b, c, n)

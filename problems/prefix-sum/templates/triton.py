import triton
import triton.language as tl


@triton.jit
def scan(x, y, n, BLOCK: tl.constexpr):
    # TODO: y[i] = x[0] + ... + x[i] (inclusive, int32): tl.cumsum within a block, plus the total of
    # the blocks before it
    pass


def solution(input, output, n):
    # input, output: int32 of n elements.
    scan[(1,)](input, output, n, BLOCK=4096)

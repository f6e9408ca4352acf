import triton
import triton.language as tl


@triton.jit
def leaky_relu(x, alpha, y, count, BLOCK: tl.constexpr):
    # TODO: y = x where x > 0, alpha * x elsewhere, for this program's BLOCK elements
    pass


def solution(input, alpha, output, n, m):
    # input, output: float32 buffers of n x m (row-major, contiguous: one flat range); alpha: a float.
    BLOCK = 1024
    count = n * m
    leaky_relu[(triton.cdiv(count, BLOCK),)](input, alpha, output, count, BLOCK=BLOCK)

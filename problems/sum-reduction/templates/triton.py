import triton
import triton.language as tl


@triton.jit
def partial_sums(x, output, n, BLOCK: tl.constexpr):
    # TODO: sum this program's BLOCK elements (masked past n) and add it to output[0] (tl.atomic_add)
    pass


def solution(input, output, n):
    # input: float32 of n elements; output: one float32 (it holds garbage until you write it).
    BLOCK = 8192
    partial_sums[(triton.cdiv(n, BLOCK),)](input, output, n, BLOCK=BLOCK)

import triton
import triton.language as tl


@triton.jit
def count(data, hist, n, BLOCK: tl.constexpr):
    # TODO: add 1 to hist[data[i]] for this program's BLOCK elements (tl.atomic_add, masked past n)
    pass


def solution(data, hist, n, bins):
    # data: int32 of n values in [0, bins); hist: int32 of bins (it holds garbage until you clear it).
    BLOCK = 4096
    count[(triton.cdiv(n, BLOCK),)](data, hist, n, BLOCK=BLOCK)

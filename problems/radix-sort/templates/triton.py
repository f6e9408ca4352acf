import triton
import triton.language as tl


@triton.jit
def radix_pass(keys, src, dst, n, shift, BLOCK: tl.constexpr, RADIX: tl.constexpr):
    # TODO: one stable counting-sort pass on a digit of the keys (a least-significant-digit radix
    # sort): count each digit (tl.histogram), scan the counts, then send each element to its digit's
    # next slot, equal digits in their current order. The outputs can hold what passes hand on.
    pass


def solution(keys, values, out_keys, out_values, n):
    # keys, values, out_keys, out_values: n unsigned 32-bit integers. out_keys = the keys sorted
    # ascending, out_values = their values, equal keys in input order (stable).
    radix_pass[(1,)](keys, out_keys, out_values, n, 0, BLOCK=4096, RADIX=16)

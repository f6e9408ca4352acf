import triton
import triton.language as tl


@triton.jit
def topk(x, values, indices, cols, k, BLOCK: tl.constexpr):
    # TODO: for row program_id(0) of x (rows x cols float32): its k largest values in descending
    # order, equal values by ascending index, into values[row, :k] (float32) and indices[row, :k]
    # (int32). E.g. a radix select (tl.histogram of 8-bit digits of the float's ordered bits) for the
    # k-th largest, a sweep taking the values above it, then an ordering of the k chosen.
    pass


def solution(x, values, indices, rows, cols, k):
    # x: rows x cols float32; values: rows x k float32; indices: rows x k int32. k <= cols.
    BLOCK = min(16384, triton.next_power_of_2(cols))
    topk[(rows,)](x, values, indices, cols, k, BLOCK=BLOCK)

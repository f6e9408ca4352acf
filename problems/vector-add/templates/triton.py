import triton
import triton.language as tl


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    # TODO: this program's BLOCK elements: offsets, a mask for the last block, load, add, store
    pass


def solution(a, b, c, n):
    # a, b: float32 inputs, c: the float32 output (tensor-like buffers of n elements); n: an int.
    BLOCK = 1024
    vector_add[(triton.cdiv(n, BLOCK),)](a, b, c, n, BLOCK=BLOCK)

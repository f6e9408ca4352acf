import triton
import triton.language as tl


@triton.jit
def w8a8_gemm(a, a_scale, b, b_scale, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              BLOCK_K: tl.constexpr):
    # TODO: this program's BLOCK_M x BLOCK_N tile: tl.dot of int8 tiles of A (M x K) and of B (N x K,
    # read as K x N) into an int32 accumulator, masked at the edges; then
    # C = (acc as float32) * a_scale[row] * b_scale[col], stored as bfloat16.
    pass


def solution(A, a_scale, B, b_scale, C, M, N, K):
    # A: M x K int8, a_scale: M float32, B: N x K int8, b_scale: N float32, C: M x N bfloat16 (the output).
    BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    w8a8_gemm[grid](A, a_scale, B, b_scale, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)

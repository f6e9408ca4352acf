import triton
import triton.language as tl


@triton.jit
def matmul(a, b, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # TODO: this program's BLOCK_M x BLOCK_N tile of C, accumulated over K with tl.dot (masked at the
    # edges; input_precision="ieee" keeps float32 products)
    pass


def solution(A, B, C, M, N, K):
    # A: M x K, B: K x N (float32 inputs), C: M x N (the float32 output), all row-major.
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul[grid](A, B, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)

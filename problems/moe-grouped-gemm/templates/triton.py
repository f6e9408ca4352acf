import triton
import triton.language as tl


@triton.jit
def grouped_gemm(x, w, expert_ids, y, R, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr):
    # TODO: Y[r, :] = X[r, :] W[expert_ids[r]]^T for this program's BLOCK_M x BLOCK_N tile of Y:
    # rows of one tile may use different experts (rows come grouped by expert, sometimes shuffled).
    # Accumulate tl.dot of bf16 tiles in float32 over K; store as bfloat16.
    pass


def solution(X, W, expert_ids, Y, R, N, K, E):
    # X: R x K, W: E x N x K (one N x K weight per expert), Y: R x N, all bfloat16; expert_ids: R int32.
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 128
    grid = (triton.cdiv(R, BLOCK_M), triton.cdiv(N, BLOCK_N))
    grouped_gemm[grid](X, W, expert_ids, Y, R, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)

import triton
import triton.language as tl


@triton.jit
def gemm_residual(a, b, residual, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = residual + A B^T: A is M x K, B is N x K (both row-major, K contiguous), residual and C M x N.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a_tile = tl.load(a + rows[:, None] * K + (k + ks)[None, :],
                         mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)
        bt_tile = tl.load(b + cols[None, :] * K + (k + ks)[:, None],  # B^T's K x N tile, read from B's rows
                          mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a_tile, bt_tile, acc)
    # The fused epilogue: the residual added to the float32 accumulator, one rounding to bfloat16.
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    at = rows[:, None] * N + cols[None, :]
    acc += tl.load(residual + at, mask=inside, other=0.0).to(tl.float32)
    tl.store(c + at, acc.to(tl.bfloat16), mask=inside)


def solution(A, B, residual, C, M, N, K):
    BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemm_residual[grid](A, B, residual, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=8)

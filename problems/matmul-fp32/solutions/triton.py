import triton
import triton.language as tl


@triton.jit
def matmul(a, b, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a_tile = tl.load(a + rows[:, None] * K + (k + ks)[None, :],
                         mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)
        b_tile = tl.load(b + (k + ks)[:, None] * N + cols[None, :],
                         mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        # float32 products as float32 ("ieee"): TF32 would round the inputs to 10 mantissa bits.
        acc = tl.dot(a_tile, b_tile, acc, input_precision="ieee")
    tl.store(c + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


def solution(A, B, C, M, N, K):
    BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul[grid](A, B, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=8)

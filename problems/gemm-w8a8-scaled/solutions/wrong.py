import triton
import triton.language as tl


@triton.jit
def w8a8_gemm(a, a_scale, b, b_scale, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, K, BLOCK_K):
        a_tile = tl.load(a + rows[:, None] * K + (k + ks)[None, :],
                         mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0)
        # The bug: B read as if it were K x N (the layout of a plain GEMM), not N x K.
        b_tile = tl.load(b + (k + ks)[:, None] * N + cols[None, :],
                         mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0)
        acc = tl.dot(a_tile, b_tile, acc)
    sa = tl.load(a_scale + rows, mask=rows < M, other=0.0)
    sb = tl.load(b_scale + cols, mask=cols < N, other=0.0)
    out = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    tl.store(c + rows[:, None] * N + cols[None, :], out.to(tl.bfloat16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def solution(A, a_scale, B, b_scale, C, M, N, K):
    BLOCK_M = 16 if M <= 16 else 128
    BLOCK_N, BLOCK_K = 128, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    w8a8_gemm[grid](A, a_scale, B, b_scale, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                    num_warps=8)

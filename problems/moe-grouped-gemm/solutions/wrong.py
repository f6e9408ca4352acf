import triton
import triton.language as tl


@triton.jit
def grouped_gemm(x, w, expert_ids, y, R, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # A BLOCK_M x BLOCK_N tile of Y. Its rows may belong to several experts (at group boundaries, or
    # everywhere when rows are shuffled): for each expert between the tile's lowest and highest id
    # that one of its rows uses, the rows of other experts are masked to zero and X W_e^T is added.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    in_rows = rows < R
    ids = tl.load(expert_ids + rows, mask=in_rows, other=-1)
    first = tl.load(expert_ids + tl.program_id(0) * BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # The bug: the whole tile takes the expert of its first row, right only inside one group.
    for e in range(first, first + 1):
        mine = in_rows
        if tl.sum(mine.to(tl.int32), axis=0) > 0:
            for k in range(0, K, BLOCK_K):
                in_k = (k + ks) < K
                x_tile = tl.load(x + rows[:, None].to(tl.int64) * K + (k + ks)[None, :],
                                 mask=mine[:, None] & in_k[None, :], other=0.0)
                # W_e is N x K: its tile, read transposed, is BLOCK_K x BLOCK_N.
                w_tile = tl.load(w + e * N * K + cols[None, :] * K + (k + ks)[:, None],
                                 mask=in_k[:, None] & (cols[None, :] < N), other=0.0)
                acc = tl.dot(x_tile, w_tile, acc)  # bf16 x bf16 -> fp32 on the matrix cores
    tl.store(y + rows[:, None].to(tl.int64) * N + cols[None, :], acc.to(tl.bfloat16),
             mask=in_rows[:, None] & (cols[None, :] < N))


def solution(X, W, expert_ids, Y, R, N, K, E):
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 128
    grid = (triton.cdiv(R, BLOCK_M), triton.cdiv(N, BLOCK_N))
    grouped_gemm[grid](X, W, expert_ids, Y, R, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=8)

import triton
import triton.language as tl


@triton.jit
def linear_cross_entropy(hidden, weight, targets, loss, T, V, H, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_K: tl.constexpr):
    # One program: BLOCK_M tokens. The vocabulary in blocks of BLOCK_N rows: a tile of logits by
    # tl.dot over H in steps of BLOCK_K (float32, never stored), then an online log-sum-exp (running
    # maximum m, sum l rescaled when m grows) and the target's logit picked from the tile holding it.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < T
    target = tl.load(targets + rows, mask=row_ok, other=0)
    m = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l = tl.zeros((BLOCK_M,), dtype=tl.float32)
    x_t = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for v0 in range(0, V, BLOCK_N):
        vocab = v0 + cols
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, H, BLOCK_K):
            k = k0 + ks
            h_tile = tl.load(hidden + rows[:, None].to(tl.int64) * H + k[None, :],
                             mask=row_ok[:, None] & (k[None, :] < H), other=0.0)
            w_tile = tl.load(weight + vocab[None, :].to(tl.int64) * H + k[:, None],
                             mask=(vocab[None, :] < V) & (k[:, None] < H), other=0.0)  # BLOCK_K x BLOCK_N
            acc = tl.dot(h_tile, w_tile, acc)
        x = tl.where(vocab[None, :] < V, acc, -float("inf"))
        x_t += tl.sum(tl.where(vocab[None, :] == target[:, None], acc, 0.0), axis=1)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        m = m_new
    tl.store(loss + rows, m + tl.log(l) - x_t, mask=row_ok)


def solution(hidden, weight, targets, loss, T, V, H):
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 64
    grid = (triton.cdiv(T, BLOCK_M),)
    linear_cross_entropy[grid](hidden, weight, targets, loss, T, V, H, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                               BLOCK_K=BLOCK_K, num_warps=4)

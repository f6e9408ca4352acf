import triton
import triton.language as tl


@triton.jit
def linear_cross_entropy(hidden, weight, targets, loss, T, V, H, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_K: tl.constexpr):
    # TODO: for BLOCK_M tokens, loop over the vocabulary in blocks of BLOCK_N rows of weight: a tile
    # of logits hidden[rows] @ weight[vocab]^T by tl.dot over H in steps of BLOCK_K (float32, not
    # stored), an online log-sum-exp (running maximum and sum), the target's logit; then
    # loss[t] = logsumexp - x[t, targets[t]], float32.
    pass


def solution(hidden, weight, targets, loss, T, V, H):
    # hidden: T x H, weight: V x H, bfloat16 row-major; targets: int32 of T; loss: float32 of T.
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 64
    grid = (triton.cdiv(T, BLOCK_M),)
    linear_cross_entropy[grid](hidden, weight, targets, loss, T, V, H, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                               BLOCK_K=BLOCK_K)

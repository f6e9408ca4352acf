import triton
import triton.language as tl


@triton.jit
def gate_up(x, w1, topk_ids, act, T, H, I, topk,  # noqa: E741
            BLOCK_T: tl.constexpr, BLOCK_I: tl.constexpr, BLOCK_K: tl.constexpr):
    # TODO: for this program's BLOCK_T tokens and BLOCK_I columns of I, for each expert e its tokens
    # use: g = x w1[e, :I]^T and u = x w1[e, I:]^T (tl.dot of bf16 tiles, float32 accumulators), then
    # act[(t * topk + j) * I + n] = bfloat16(SiLU(g) * u) where topk_ids[t, j] == e.
    pass


@triton.jit
def down(act, w2, topk_ids, topk_weights, out, T, H, I, topk,  # noqa: E741
         BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_K: tl.constexpr):
    # TODO: out[t, d] = bfloat16(sum_j topk_weights[t, j] * sum_i act[t, j, i] w2[topk_ids[t, j], d, i])
    pass


def solution(x, w1, w2, topk_ids, topk_weights, act, out, T, H, I, E, topk):  # noqa: E741
    # x: T x H, w1: E x 2I x H, w2: E x H x I, act: T x topk x I, out: T x H (bfloat16); topk_ids int32 and
    # topk_weights float32: T x topk.
    BLOCK_T, BLOCK_I, BLOCK_D, BLOCK_K = 32, 64, 64, 64
    gate_up[(triton.cdiv(T, BLOCK_T), triton.cdiv(I, BLOCK_I))](
        x, w1, topk_ids, act, T, H, I, topk, BLOCK_T=BLOCK_T, BLOCK_I=BLOCK_I, BLOCK_K=BLOCK_K)
    down[(triton.cdiv(T, BLOCK_T), triton.cdiv(H, BLOCK_D))](
        act, w2, topk_ids, topk_weights, out, T, H, I, topk, BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, BLOCK_K=BLOCK_K)

import triton
import triton.language as tl


@triton.jit
def attention(q, k, v, o, lse, S, H, Hkv, qk_scale, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # TODO: O = softmax(Q K^T / sqrt(D)) V for BLOCK_M queries of one (batch, head):
    # program_id(1) = b * H + h; query head h reads key/value head h // (H // Hkv). Layout
    # [batch, sequence, heads, D], bfloat16. Loop over all blocks of BLOCK_N keys (no mask) with an
    # online softmax (running maximum and sum, float32; qk_scale = log2(e) / sqrt(D) for tl.exp2),
    # tl.dot for Q K^T and P V; store O as bfloat16 and lse[(b * H + h) * S + i] = the natural log
    # of sum_j exp(q_i . k_j / sqrt(D)), float32.
    pass


def solution(Q, K, V, O, LSE, B, S, H, Hkv, D):  # noqa: E741 - the problem names its output O
    # Q, O: B x S x H x D; K, V: B x S x Hkv x D; bfloat16. LSE: B x H x S, float32. D is 64 or 128.
    BLOCK_M, BLOCK_N = 64, 64
    qk_scale = 1.4426950408889634 / D ** 0.5
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    attention[grid](Q, K, V, O, LSE, S, H, Hkv, qk_scale, D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)

import triton
import triton.language as tl


@triton.jit
def attention(q, k, v, sinks, o, S, H, Hkv, W, qk_scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr):
    # TODO: O = sum_j e^s_ij V_j / (sum_j e^s_ij + e^sinks[h]) over the keys i - W < j <= i, for
    # BLOCK_M queries of one (batch, head): program_id(1) = b * H + h; query head h reads key/value
    # head h // (H // Hkv). Layout [batch, sequence, heads, D], bfloat16. Loop over the blocks of
    # BLOCK_N keys the window covers with an online softmax (running maximum and sum, float32;
    # qk_scale = log2(e) / sqrt(D) for tl.exp2, the sink times log2(e)), tl.dot for Q K^T and P V.
    pass


def solution(Q, K, V, sinks, O, B, S, H, Hkv, D, W):  # noqa: E741 - the problem names its output O
    # Q, O: B x S x H x D; K, V: B x S x Hkv x D; bfloat16. sinks: H floats. D is 64 or 128.
    BLOCK_M, BLOCK_N = 64, 64
    qk_scale = 1.4426950408889634 / D ** 0.5
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    attention[grid](Q, K, V, sinks, O, S, H, Hkv, W, qk_scale, D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)

import triton
import triton.language as tl


@triton.jit
def attention(q, k, v, cu_q, cu_k, o, B, H, Hkv, qk_scale, D: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr):
    # TODO: one program per (tile of BLOCK_M queries of one sequence, head): program_id(1) = h; find
    # the sequence b whose tiles hold program_id(0) from cu_q (its tiles are cdiv(q_len, BLOCK_M)).
    # Query i of the sequence (row cu_q[b] + i of q) sees keys j <= i + k_len - q_len (rows cu_k[b] + j
    # of k and v, key/value head h // (H // Hkv)). Online softmax (qk_scale = log2(e) / sqrt(D) for
    # tl.exp2), tl.dot for Q K^T and P V; store O as bfloat16.
    pass


def solution(Q, K, V, cu_seqlens_q, cu_seqlens_k, O, B, Tq, Tk, H, Hkv, D):  # noqa: E741 - the problem names its output O
    # Q, O: Tq x H x D; K, V: Tk x Hkv x D; bfloat16. cu_seqlens_*: B + 1 int32. D is 64 or 128.
    BLOCK_M, BLOCK_N = 64, 64
    qk_scale = 1.4426950408889634 / D ** 0.5
    grid = (triton.cdiv(Tq, BLOCK_M) + B, H)  # at least the sum over sequences of cdiv(q_len, BLOCK_M)
    attention[grid](Q, K, V, cu_seqlens_q, cu_seqlens_k, O, B, H, Hkv, qk_scale, D=D, BLOCK_M=BLOCK_M,
                    BLOCK_N=BLOCK_N)

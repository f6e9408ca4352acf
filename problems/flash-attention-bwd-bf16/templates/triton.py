import triton
import triton.language as tl


@triton.jit
def attention_bwd(q, k, v, o, do, lse, dq, dk, dv, S, H, sm_scale, D: tl.constexpr, BLOCK: tl.constexpr):
    # TODO: the gradients of causal attention for one (batch, head): program_id(1) = b * H + h.
    # Layout [batch, sequence, heads, D], bfloat16; lse[(b * H + h) * S + i], float32, natural log.
    # P = exp(q_i . k_j * sm_scale - lse_i) for j <= i, D_i = sum(do_i * o_i), dP = do_i . v_j,
    # dS = P (dP - D_i); dV = P^T dO, dK = dS^T Q * sm_scale, dQ = dS K * sm_scale (tl.dot), stored
    # as bfloat16.
    pass


def solution(Q, K, V, O, dO, LSE, dQ, dK, dV, B, S, H, D):  # noqa: E741 - the problem names its input O
    # Q, K, V, O, dO, dQ, dK, dV: B x S x H x D, bfloat16. LSE: B x H x S, float32. D is 64 or 128.
    BLOCK = 32
    sm_scale = 1.0 / D ** 0.5
    grid = (triton.cdiv(S, BLOCK), B * H)
    attention_bwd[grid](Q, K, V, O, dO, LSE, dQ, dK, dV, S, H, sm_scale, D=D, BLOCK=BLOCK)

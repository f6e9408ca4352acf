import triton
import triton.language as tl


@triton.jit
def sample(probs, top_k, top_p, uniforms, token, V, BLOCK: tl.constexpr):
    # TODO: row program_id(0): order its tokens by probability (largest first, ties to the lower id),
    # keep the first top_k, then the shortest prefix whose sum reaches top_p times their sum, and
    # store the first token whose running sum exceeds uniforms times that prefix's sum. Hint:
    # non-negative floats order as their bits (x.to(tl.int32, bitcast=True)).
    pass


def solution(probs, top_k, top_p, uniforms, token, B, V):
    # probs: float32 B x V; top_k: int32 of B; top_p, uniforms: float32 of B; token: int32 of B.
    sample[(B,)](probs, top_k, top_p, uniforms, token, V, BLOCK=1024)

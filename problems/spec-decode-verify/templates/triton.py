import triton
import triton.language as tl


@triton.jit
def verify(target_logits, draft_tokens, accepted, output_tokens, K, V, BLOCK: tl.constexpr):
    # TODO: sequence program_id(0): for positions i = 0, 1, ..., the argmax of target_logits[b, i]
    # (the first maximum), until it differs from draft_tokens[b, i] or i = K; accepted[b] = that i,
    # output_tokens[b] = the argmaxes up to i, then -1
    pass


def solution(target_logits, draft_tokens, accepted, output_tokens, B, K, V):
    # target_logits: bfloat16 B x (K + 1) x V; draft_tokens: int32 B x K; accepted: int32 of B;
    # output_tokens: int32 B x (K + 1).
    verify[(B,)](target_logits, draft_tokens, accepted, output_tokens, K, V, BLOCK=4096)

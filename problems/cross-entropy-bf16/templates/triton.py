import triton
import triton.language as tl


@triton.jit
def cross_entropy(logits, targets, loss, vocab, BLOCK: tl.constexpr):
    # TODO: token program_id(0): loss = log(sum(exp(logits[row]))) - logits[row, targets[row]], the
    # log-sum-exp over the vocabulary in BLOCK-sized pieces, with the row maximum subtracted
    pass


def solution(logits, targets, loss, tokens, vocab):
    # logits: bfloat16 tokens x vocab; targets: int32 of tokens; loss: float32 of tokens.
    cross_entropy[(tokens,)](logits, targets, loss, vocab, BLOCK=4096)

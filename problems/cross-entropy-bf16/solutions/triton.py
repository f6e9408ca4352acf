import triton
import triton.language as tl


@triton.jit
def cross_entropy(logits, targets, loss, vocab, BLOCK: tl.constexpr):
    # One token per program: an online log-sum-exp over the vocabulary in blocks (a running maximum
    # and the sum rescaled to it), minus the target's logit.
    row = tl.program_id(0).to(tl.int64)
    base = logits + row * vocab
    m = tl.full((), -float("inf"), tl.float32)
    s = tl.zeros((), tl.float32)
    for start in range(0, vocab, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        v = tl.load(base + offsets, mask=offsets < vocab, other=-float("inf")).to(tl.float32)
        new_m = tl.maximum(m, tl.max(v, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(v - new_m), axis=0)
        m = new_m
    target = tl.load(targets + row).to(tl.int64)
    tl.store(loss + row, tl.log(s) + m - tl.load(base + target).to(tl.float32))


def solution(logits, targets, loss, tokens, vocab):
    cross_entropy[(tokens,)](logits, targets, loss, vocab, BLOCK=4096, num_warps=8)

import triton
import triton.language as tl


@triton.jit
def route(logits, weights, ids, T, E, topk, renormalize, BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr):
    # TODO: for each of BLOCK_T tokens (rows of E float32 logits): the softmax of the row (subtract
    # its maximum), then the topk experts by descending logit, ties to the lower expert index
    # (tl.argmax(..., tie_break_left=True)); ids[t, j] = the j-th expert, weights[t, j] = its softmax
    # probability, divided by the sum of the chosen ones' probabilities when renormalize != 0.
    pass


def solution(logits, weights, ids, T, E, topk, renormalize):
    # logits: T x E float32; weights: T x topk float32; ids: T x topk int32.
    BLOCK_T = 128
    BLOCK_E = triton.next_power_of_2(E)
    route[(triton.cdiv(T, BLOCK_T),)](logits, weights, ids, T, E, topk, renormalize,
                                      BLOCK_T=BLOCK_T, BLOCK_E=BLOCK_E)

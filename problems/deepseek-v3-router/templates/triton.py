import triton
import triton.language as tl


@triton.jit
def gate(x, w, bias, weights, ids, T, H, BLOCK_T: tl.constexpr, BLOCK_K: tl.constexpr):
    # TODO: this program's BLOCK_T tokens: their 256 logits by tl.dot over H (float32; W is 256 x H, its rows
    # are W^T's columns), then sigmoid, + bias, group scores (tl.reshape to 8 x 32), the top 4 groups and
    # top 8 experts (tl.argmax takes the first maximum), and the stores, ids in increasing order.
    pass


def solution(x, W, bias, weights, ids, T, H):
    # x: T x H, W: 256 x H (bfloat16), bias: 256 floats; weights (float) and ids (int32): T x 8.
    BLOCK_T, BLOCK_K = 16, 64
    gate[(triton.cdiv(T, BLOCK_T),)](x, W, bias, weights, ids, T, H, BLOCK_T=BLOCK_T, BLOCK_K=BLOCK_K)

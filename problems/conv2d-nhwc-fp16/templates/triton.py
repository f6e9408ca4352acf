import triton
import triton.language as tl


@triton.jit
def conv3x3(inp, weight, out, N, H, W, C, K, BLOCK_P: tl.constexpr, BLOCK_K: tl.constexpr,
            BLOCK_C: tl.constexpr):
    # TODO: out[n, h, w, k] = sum over r, s in 0..2 and c of input[n, h + r - 1, w + s - 1, c] *
    # weight[k, r, s, c] (zero outside the image), as an implicit GEMM: BLOCK_P output pixels by
    # BLOCK_K output channels, tl.dot of fp16 tiles per tap and BLOCK_C channels, accumulated in
    # float32, stored as half.
    pass


def solution(input, weight, output, N, H, W, C, K):
    # input: N x H x W x C, weight: K x 3 x 3 x C, output: N x H x W x K, all half, row-major.
    BLOCK_P, BLOCK_K, BLOCK_C = 128, 128, 64
    grid = (triton.cdiv(N * H * W, BLOCK_P), triton.cdiv(K, BLOCK_K))
    conv3x3[grid](input, weight, output, N, H, W, C, K, BLOCK_P=BLOCK_P, BLOCK_K=BLOCK_K, BLOCK_C=BLOCK_C)

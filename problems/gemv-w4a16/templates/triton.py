import triton
import triton.language as tl


@triton.jit
def gemv(x, w, scales, y, N, K, BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr):
    # TODO: y[n] = sum over k of (q[n, k] - 8) * scales[n, k // 128] * x[k], summed in float32 and
    # stored as half. W packs two 4-bit weights per byte: q[n, 2j] is the low nibble of W[n, j],
    # q[n, 2j + 1] the high one. Each program: BLOCK_N rows, the bytes of a row in chunks of BLOCK_P.
    pass


def solution(x, W, scales, y, N, K):
    # x: K halves; W: N x K/2 bytes; scales: N x ceil(K / 128) halves; y: N halves.
    BLOCK_N, BLOCK_P = 64, 512
    gemv[(triton.cdiv(N, BLOCK_N),)](x, W, scales, y, N, K, BLOCK_N=BLOCK_N, BLOCK_P=BLOCK_P)

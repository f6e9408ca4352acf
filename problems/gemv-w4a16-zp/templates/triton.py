import triton
import triton.language as tl


@triton.jit
def gemv(x, w, scales, zeros, y, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr):
    # TODO: y[m, n] = sum over k of (q[n, k] - zeros[n, k // 128]) * scales[n, k // 128] * x[m, k],
    # summed in float32 and stored as half. W packs two 4-bit weights per byte: q[n, 2j] is the low
    # nibble of W[n, j], q[n, 2j + 1] the high one. Each program: BLOCK_N rows of W against all M
    # (<= BLOCK_M) rows of x, the bytes of a row in chunks of BLOCK_P (tl.dot applies).
    pass


def solution(x, W, scales, zeros, y, M, N, K):
    # x: M x K halves; W: N x K/2 bytes; scales: N x ceil(K / 128) halves; zeros: N x ceil(K / 128)
    # bytes (0..15); y: M x N halves.
    BLOCK_N, BLOCK_P = 64, 128
    gemv[(triton.cdiv(N, BLOCK_N),)](x, W, scales, zeros, y, M, N, K, BLOCK_M=16, BLOCK_N=BLOCK_N, BLOCK_P=BLOCK_P)

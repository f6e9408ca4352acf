import triton
import triton.language as tl


@triton.jit
def grouped(x, x_scale, w, w_scale, expert_ids, y, R, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # TODO: Y[r, n] = sum over k of X[r, k] X_scale[k // 128, r] W[e, n, k] W_scale[e, n // 128, k // 128]
    # with e = expert_ids[r] (X, W fp8 E4M3 FNUZ; the scales float32). Per 128-deep block of K: tl.dot
    # of the fp8 tiles (float32 accumulation), scaled by the two scales, added in float32. A tile's
    # rows may belong to several experts. Store Y (R x N, row-major) as bfloat16.
    pass


def solution(X, X_scale, W, W_scale, expert_ids, Y, R, N, K, E):
    # X: [R, K], W: [E, N, K] fp8; X_scale: [ceil(K/128), R], W_scale: [E, ceil(N/128), ceil(K/128)] float32.
    BLOCK_M, BLOCK_N = 64, 128
    grid = (triton.cdiv(R, BLOCK_M), triton.cdiv(N, BLOCK_N))
    grouped[grid](X, X_scale, W, W_scale, expert_ids, Y, R, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)

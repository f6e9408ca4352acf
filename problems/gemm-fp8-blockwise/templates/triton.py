import triton
import triton.language as tl


@triton.jit
def gemm(a, b, a_scale, b_scale, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # TODO: C[m, n] = sum over k of A[k, m] A_scale[k // 128, m] B[k, n] B_scale[k // 128, n // 128]
    # (A, B fp8 E4M3 FNUZ stored [K, M] and [K, N]; the scales float32). Per 128-deep block of K:
    # tl.dot of the fp8 tiles (float32 accumulation), scaled by the two scales, added in float32.
    # Store C (M x N, row-major) as bfloat16.
    pass


def solution(A, B, A_scale, B_scale, C, M, N, K):
    # A: [K, M], B: [K, N] fp8; A_scale: [ceil(K/128), M], B_scale: [ceil(K/128), ceil(N/128)] float32.
    BLOCK_M, BLOCK_N = 64, 128
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemm[grid](A, B, A_scale, B_scale, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)

import triton
import triton.language as tl


@triton.jit
def gemv(x, w, scales, y, N, K, BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr):
    # BLOCK_N rows of W; the K / 2 bytes of a row in chunks of BLOCK_P, each byte two weights
    # (low nibble: the even k, high nibble: the odd k), each minus 8 and times its group's scale.
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    pairs = tl.arange(0, BLOCK_P)
    half_k = K // 2
    groups = (K + 127) // 128
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for p0 in range(0, half_k, BLOCK_P):
        p = p0 + pairs
        in_k = p < half_k
        mask = (rows[:, None] < N) & in_k[None, :]
        packed = tl.load(w + rows[:, None].to(tl.int64) * half_k + p[None, :], mask=mask, other=0).to(tl.int32)
        scale = tl.load(scales + rows[:, None] * groups + (2 * p[None, :]) // 128, mask=mask, other=0.0).to(tl.float32)
        x_even = tl.load(x + 2 * p, mask=in_k, other=0.0).to(tl.float32)
        x_odd = tl.load(x + 2 * p + 1, mask=in_k, other=0.0).to(tl.float32)
        low = ((packed & 15) - 8).to(tl.float32) * scale
        high = ((packed >> 4) - 8).to(tl.float32) * scale
        acc += tl.sum(low * x_even[None, :] + high * x_odd[None, :], axis=1)
    tl.store(y + rows, acc.to(tl.float16), mask=rows < N)


def solution(x, W, scales, y, N, K):
    BLOCK_N, BLOCK_P = 64, 512
    gemv[(triton.cdiv(N, BLOCK_N),)](x, W, scales, y, N, K, BLOCK_N=BLOCK_N, BLOCK_P=BLOCK_P, num_warps=8)

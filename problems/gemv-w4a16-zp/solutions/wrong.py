import triton
import triton.language as tl


@triton.jit
def gemv(x, w, scales, zeros, y, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    tokens = tl.arange(0, BLOCK_M)
    pairs = tl.arange(0, BLOCK_P)
    half_k = K // 2
    groups = (K + 127) // 128
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for p0 in range(0, half_k, BLOCK_P):
        p = p0 + pairs
        in_k = p < half_k
        mask = (rows[:, None] < N) & in_k[None, :]
        packed = tl.load(w + rows[:, None].to(tl.int64) * half_k + p[None, :], mask=mask, other=0).to(tl.int32)
        meta = rows[:, None] * groups + (2 * p[None, :]) // 128
        scale = tl.load(scales + meta, mask=mask, other=0.0).to(tl.float32)
        # The bug: the zero points ignored, 8 taken for every group (the symmetric format).
        zero = 8
        low = (((packed & 15) - zero).to(tl.float32) * scale).to(tl.float16)
        high = (((packed >> 4) - zero).to(tl.float32) * scale).to(tl.float16)
        xmask = (tokens[:, None] < M) & in_k[None, :]
        x_offs = tokens[:, None] * K + 2 * p[None, :]
        x_even = tl.load(x + x_offs, mask=xmask, other=0.0)
        x_odd = tl.load(x + x_offs + 1, mask=xmask, other=0.0)
        acc += tl.dot(x_even, tl.trans(low), out_dtype=tl.float32)
        acc += tl.dot(x_odd, tl.trans(high), out_dtype=tl.float32)
    out = tokens[:, None] * N + rows[None, :]
    tl.store(y + out, acc.to(tl.float16), mask=(tokens[:, None] < M) & (rows[None, :] < N))


def solution(x, W, scales, zeros, y, M, N, K):
    BLOCK_N, BLOCK_P = 64, 128
    gemv[(triton.cdiv(N, BLOCK_N),)](x, W, scales, zeros, y, M, N, K, BLOCK_M=16, BLOCK_N=BLOCK_N,
                                     BLOCK_P=BLOCK_P, num_warps=4)

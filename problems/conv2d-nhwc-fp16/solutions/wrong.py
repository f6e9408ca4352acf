import triton
import triton.language as tl


@triton.jit
def conv3x3(inp, weight, out, N, H, W, C, K, BLOCK_P: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_C: tl.constexpr):
    # Implicit GEMM: output pixels (n, h, w) are the rows, output channels the columns, and the
    # 9 C taps the reduction. For tap (r, s) a pixel reads input pixel (h + r - 1, w + s - 1), zero
    # outside the image (padding 1); the weight tile of that tap is BLOCK_C x BLOCK_K.
    pix = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    ch = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    cs = tl.arange(0, BLOCK_C)
    P = N * H * W
    n = pix // (H * W)
    h = (pix // W) % H
    w = pix % W
    acc = tl.zeros((BLOCK_P, BLOCK_K), dtype=tl.float32)
    for tap in range(9):  # a loop, not unrolled: 9 copies of the K loop would compile slowly
        hh = h + (tap // 3) - 1
        ww = w + (tap % 3) - 1
        inside = (pix < P) & (hh >= 0) & (hh < H) & (ww >= 0) & (ww < W)
        base = ((n * H + hh) * W + ww) * C
        for c in range(0, C, BLOCK_C):
            in_c = (c + cs) < C
            x_tile = tl.load(inp + base[:, None] + (c + cs)[None, :], mask=inside[:, None] & in_c[None, :], other=0.0)
            # The bug: the filter flipped (tap 8 - t), a true convolution, not the cross-correlation.
            w_tile = tl.load(weight + (ch[None, :] * 9 + (8 - tap)) * C + (c + cs)[:, None],
                             mask=in_c[:, None] & (ch[None, :] < K), other=0.0)
            acc = tl.dot(x_tile, w_tile, acc)  # fp16 x fp16 -> fp32 on the matrix cores
    tl.store(out + pix[:, None] * K + ch[None, :], acc.to(tl.float16), mask=(pix[:, None] < P) & (ch[None, :] < K))


def solution(input, weight, output, N, H, W, C, K):
    BLOCK_P, BLOCK_K, BLOCK_C = 128, 128, 64
    grid = (triton.cdiv(N * H * W, BLOCK_P), triton.cdiv(K, BLOCK_K))
    conv3x3[grid](input, weight, output, N, H, W, C, K, BLOCK_P=BLOCK_P, BLOCK_K=BLOCK_K, BLOCK_C=BLOCK_C, num_warps=8)

import triton
import triton.language as tl


@triton.jit
def quantize(x, q, scales, rows, cols, BLOCK_R: tl.constexpr, GROUPS: tl.constexpr):
    # A BLOCK_R x (GROUPS * 128) tile of x: each row's 1 x 128 groups side by side.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    g = tl.program_id(1) * GROUPS + tl.arange(0, GROUPS)
    c = tl.arange(0, 128)
    col = g[None, :, None] * 128 + c[None, None, :]
    mask = (r[:, None, None] < rows) & (col < cols)
    v = tl.load(x + r[:, None, None].to(tl.int64) * cols + col, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(v), axis=2)  # exact: a bfloat16 value
    scale = amax / 240.0  # 240: the largest E4M3 FNUZ value
    safe = tl.where(scale > 0, scale, 1.0)
    quotient = tl.where(scale[:, :, None] > 0, v / safe[:, :, None], 0.0)
    tl.store(q + r[:, None, None].to(tl.int64) * cols + col, quotient.to(tl.float8e4b8), mask=mask)
    groups = cols // 128
    tl.store(scales + r[:, None] * groups + g[None, :], scale, mask=(r[:, None] < rows) & (g[None, :] < groups))


def solution(x, q, scales, rows, cols):
    BLOCK_R, GROUPS = 16, 16
    grid = (triton.cdiv(rows, BLOCK_R), triton.cdiv(cols // 128, GROUPS))
    quantize[grid](x, q, scales, rows, cols, BLOCK_R=BLOCK_R, GROUPS=GROUPS, num_warps=8)

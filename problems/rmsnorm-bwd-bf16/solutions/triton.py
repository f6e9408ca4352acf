import triton
import triton.language as tl


@triton.jit
def rmsnorm_bwd_dx(dy, x, weight, rstd, dx, cols, BLOCK: tl.constexpr):
    # One program per row, the whole row in registers (BLOCK >= cols): S = sum of w dy x rstd, then
    # dx = rstd (w dy - x rstd S / cols). Masked lanes load 0 and add nothing.
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    g = tl.load(dy + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    xhat = tl.load(x + row * cols + offs, mask=mask, other=0.0).to(tl.float32) * tl.load(rstd + row)
    wg = tl.load(weight + offs, mask=mask, other=0.0).to(tl.float32) * g
    mean = tl.sum(wg * xhat, axis=0) / cols
    tl.store(dx + row * cols + offs, (tl.load(rstd + row) * (wg - xhat * mean)).to(tl.bfloat16), mask=mask)


@triton.jit
def rmsnorm_bwd_dweight(dy, x, rstd, dweight, rows, cols, BLOCK_C: tl.constexpr, BLOCK_R: tl.constexpr):
    # One program per BLOCK_C columns, walking the rows BLOCK_R at a time: float32 column sums of dy x rstd.
    cols_here = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, rows, BLOCK_R):
        rs = r0 + tl.arange(0, BLOCK_R)
        m = (rs[:, None] < rows) & (cols_here[None, :] < cols)
        offs = rs[:, None].to(tl.int64) * cols + cols_here[None, :]
        g = tl.load(dy + offs, mask=m, other=0.0).to(tl.float32)
        xv = tl.load(x + offs, mask=m, other=0.0).to(tl.float32)
        s = tl.load(rstd + rs, mask=rs < rows, other=0.0)
        acc += tl.sum(g * (xv * s[:, None]), axis=0)
    tl.store(dweight + cols_here, acc, mask=cols_here < cols)


def solution(dy, x, weight, rstd, dx, dweight, rows, cols):
    BLOCK = triton.next_power_of_2(cols)
    if rows > 0:
        rmsnorm_bwd_dx[(rows,)](dy, x, weight, rstd, dx, cols, BLOCK=BLOCK, num_warps=8 if BLOCK >= 4096 else 4)
    BLOCK_C, BLOCK_R = 64, 32
    rmsnorm_bwd_dweight[(triton.cdiv(cols, BLOCK_C),)](dy, x, rstd, dweight, rows, cols, BLOCK_C=BLOCK_C,
                                                       BLOCK_R=BLOCK_R)

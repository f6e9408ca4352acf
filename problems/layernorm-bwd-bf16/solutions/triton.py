import triton
import triton.language as tl


@triton.jit
def layernorm_bwd_dx(dy, x, weight, mean, rstd, dx, cols, BLOCK: tl.constexpr):
    # One program per row, the whole row in registers (BLOCK >= cols): c1 = mean of w dy x_hat,
    # c2 = mean of w dy, then dx = rstd (w dy - x_hat c1 - c2). Masked lanes load 0 and add nothing.
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    s = tl.load(rstd + row)
    xv = tl.load(x + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    xhat = tl.where(mask, (xv - tl.load(mean + row)) * s, 0.0)
    g = tl.load(dy + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    wdy = tl.load(weight + offs, mask=mask, other=0.0).to(tl.float32) * g
    c1 = tl.sum(wdy * xhat, axis=0) / cols
    c2 = tl.sum(wdy, axis=0) / cols
    tl.store(dx + row * cols + offs, (s * (wdy - xhat * c1 - c2)).to(tl.bfloat16), mask=mask)


@triton.jit
def layernorm_bwd_dweight(dy, x, mean, rstd, dweight, dbias, rows, cols, BLOCK_C: tl.constexpr,
                          BLOCK_R: tl.constexpr):
    # One program per BLOCK_C columns, walking the rows BLOCK_R at a time: float32 column sums of
    # dy x_hat and of dy.
    cols_here = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc_w = tl.zeros((BLOCK_C,), dtype=tl.float32)
    acc_b = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, rows, BLOCK_R):
        rs = r0 + tl.arange(0, BLOCK_R)
        m = (rs[:, None] < rows) & (cols_here[None, :] < cols)
        offs = rs[:, None].to(tl.int64) * cols + cols_here[None, :]
        g = tl.load(dy + offs, mask=m, other=0.0).to(tl.float32)
        xv = tl.load(x + offs, mask=m, other=0.0).to(tl.float32)
        mu = tl.load(mean + rs, mask=rs < rows, other=0.0)
        s = tl.load(rstd + rs, mask=rs < rows, other=0.0)
        acc_w += tl.sum(g * ((xv - mu[:, None]) * s[:, None]), axis=0)
        acc_b += tl.sum(g, axis=0)
    tl.store(dweight + cols_here, acc_w, mask=cols_here < cols)
    tl.store(dbias + cols_here, acc_b, mask=cols_here < cols)


def solution(dy, x, weight, mean, rstd, dx, dweight, dbias, rows, cols):
    BLOCK = triton.next_power_of_2(cols)
    if rows > 0:
        layernorm_bwd_dx[(rows,)](dy, x, weight, mean, rstd, dx, cols, BLOCK=BLOCK,
                                  num_warps=8 if BLOCK >= 4096 else 4)
    BLOCK_C, BLOCK_R = 64, 32
    layernorm_bwd_dweight[(triton.cdiv(cols, BLOCK_C),)](dy, x, mean, rstd, dweight, dbias, rows, cols,
                                                         BLOCK_C=BLOCK_C, BLOCK_R=BLOCK_R)

import triton
import triton.language as tl


@triton.jit
def add_rmsnorm_quant(x, residual, weight, residual_out, q, scale, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    base = row * cols
    xs = tl.load(x + base + offs, mask=mask, other=0.0).to(tl.float32)
    rs = tl.load(residual + base + offs, mask=mask, other=0.0).to(tl.float32)
    h = (xs + rs).to(tl.bfloat16)
    tl.store(residual_out + base + offs, h, mask=mask)
    v = h.to(tl.float32)
    w = tl.load(weight + offs, mask=mask, other=0.0).to(tl.float32)
    # The bug: eps added after the square root, not under it (the rows whose mean square is near eps get
    # a scale far from the right one).
    rstd = 1.0 / (tl.sqrt(tl.sum(v * v, axis=0) / cols) + 1e-5)
    s = tl.max(tl.abs(v * w), axis=0) * rstd / 240.0
    tl.store(scale + row, s)
    tl.store(q + base + offs, (v * w * rstd / s).to(q.dtype.element_ty), mask=mask)


def solution(x, residual, weight, residual_out, q, scale, rows, cols):
    BLOCK = triton.next_power_of_2(cols)
    add_rmsnorm_quant[(rows,)](x, residual, weight, residual_out, q, scale, cols, BLOCK=BLOCK,
                               num_warps=8 if BLOCK >= 4096 else 4)

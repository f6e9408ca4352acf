import triton
import triton.language as tl


@triton.jit
def layernorm(x, gamma, beta, out, rows, cols, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # ROWS rows per program, each whole in one block; two passes in float32 (mean, then the
    # variance of the centred values).
    r = (tl.program_id(0) * ROWS + tl.arange(0, ROWS)).to(tl.int64)
    c = tl.arange(0, BLOCK)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    v = tl.load(x + r[:, None] * cols + c[None, :], mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(v, axis=1) / cols
    d = tl.where(mask, v, 0.0)  # the bug: the variance of x, not of x - mean (rows with a mean are off)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=1) / cols + eps)
    g = tl.load(gamma + c, mask=c < cols, other=0.0).to(tl.float32)
    b = tl.load(beta + c, mask=c < cols, other=0.0).to(tl.float32)
    y = (v - mean[:, None]) * rstd[:, None] * g[None, :] + b[None, :]
    tl.store(out + r[:, None] * cols + c[None, :], y.to(tl.bfloat16), mask=mask)


def solution(x, gamma, beta, out, rows, cols):
    block = triton.next_power_of_2(cols)
    per_program = max(1, min(16, 4096 // block))
    layernorm[(triton.cdiv(rows, per_program),)](x, gamma, beta, out, rows, cols, 1e-5, ROWS=per_program,
                                                BLOCK=block, num_warps=min(16, max(1, block // 1024)))

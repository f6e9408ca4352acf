import triton
import triton.language as tl


@triton.jit
def rmsnorm(x, weight, out, rows, cols, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # ROWS rows per program (several short rows share one; a long row has one to itself).
    r = (tl.program_id(0) * ROWS + tl.arange(0, ROWS)).to(tl.int64)
    c = tl.arange(0, BLOCK)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    v = tl.load(x + r[:, None] * cols + c[None, :], mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(v * v, axis=1) / cols + eps)  # eps inside the square root
    w = tl.load(weight + c, mask=c < cols, other=0.0).to(tl.float32)
    tl.store(out + r[:, None] * cols + c[None, :], (v * rstd[:, None] * w[None, :]).to(tl.bfloat16), mask=mask)


def solution(x, weight, out, rows, cols):
    block = triton.next_power_of_2(cols)
    per_program = max(1, min(16, 4096 // block))
    rmsnorm[(triton.cdiv(rows, per_program),)](x, weight, out, rows, cols, 1e-5, ROWS=per_program, BLOCK=block,
                                              num_warps=min(16, max(1, block // 1024)))

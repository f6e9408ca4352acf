import triton
import triton.language as tl


@triton.jit
def softmax_rows(x, y, rows, cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # ROWS rows per program, each whole in one block; computed in float32, stored as half.
    r = (tl.program_id(0) * ROWS + tl.arange(0, ROWS)).to(tl.int64)
    c = tl.arange(0, BLOCK)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    # The bug: lanes past the row's end load 0 instead of -inf, and join its maximum and its sum.
    v = tl.load(x + r[:, None] * cols + c[None, :], mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(v - tl.max(v, axis=1)[:, None])  # each row's maximum first: exp never overflows
    tl.store(y + r[:, None] * cols + c[None, :], (e / tl.sum(e, axis=1)[:, None]).to(tl.float16), mask=mask)


def solution(x, out, rows, cols):
    block = triton.next_power_of_2(cols)
    per_program = max(1, min(16, 4096 // block))
    softmax_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols, ROWS=per_program, BLOCK=block,
                                                   num_warps=min(16, max(1, block // 1024)))

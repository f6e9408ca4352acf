import triton
import triton.language as tl


@triton.jit
def transpose(x, y, rows, cols, TILE: tl.constexpr):
    r = tl.program_id(0) * TILE + tl.arange(0, TILE)
    c = tl.program_id(1) * TILE + tl.arange(0, TILE)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(x + r[:, None] * cols + c[None, :], mask=mask)
    # The tile's transpose goes to output[c, r]: row-major cols x rows.
    tl.store(y + c[:, None] * rows + r[None, :], tl.trans(tile), mask=tl.trans(mask))


def solution(input, output, rows, cols):
    TILE = 64
    transpose[(triton.cdiv(rows, TILE), triton.cdiv(cols, TILE))](input, output, rows, cols, TILE=TILE)

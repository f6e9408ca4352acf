import triton
import triton.language as tl


@triton.jit
def rope(x, positions, cos, sin, out, heads, HALF: tl.constexpr, HEADS: tl.constexpr):
    # One token per program, all its heads: element i pairs with element i + head_dim / 2.
    token = tl.program_id(0).to(tl.int64)
    h = tl.arange(0, HEADS)
    i = tl.arange(0, HALF)
    pos = tl.load(positions + token).to(tl.int64)
    cs = tl.load(cos + pos * HALF + i)
    sn = tl.load(sin + pos * HALF + i)
    row = token * heads * 2 * HALF + h[:, None] * 2 * HALF + i[None, :]
    mask = h[:, None] < heads
    x1 = tl.load(x + row, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x + row + HALF, mask=mask, other=0.0).to(tl.float32)
    tl.store(out + row, (x1 * cs[None, :] - x2 * sn[None, :]).to(tl.bfloat16), mask=mask)
    tl.store(out + row + HALF, (x2 * cs[None, :] + x1 * sn[None, :]).to(tl.bfloat16), mask=mask)


def solution(x, positions, cos, sin, out, tokens, heads, head_dim, max_pos):
    rope[(tokens,)](x, positions, cos, sin, out, heads, HALF=head_dim // 2, HEADS=triton.next_power_of_2(heads),
                    num_warps=4)

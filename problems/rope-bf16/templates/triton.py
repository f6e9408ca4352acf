import triton
import triton.language as tl


@triton.jit
def rope(x, positions, cos, sin, out, heads, HALF: tl.constexpr, HEADS: tl.constexpr):
    # TODO: token program_id(0): for each head, x1 = x[..., :HALF], x2 = x[..., HALF:], c/s = the
    # cos/sin rows at the token's position; out = [x1 c - x2 s, x2 c + x1 s], in float32, as bfloat16
    pass


def solution(x, positions, cos, sin, out, tokens, heads, head_dim, max_pos):
    # x, out: bfloat16 tokens x heads x head_dim; positions: int32 of tokens; cos, sin: float32
    # max_pos x head_dim / 2. head_dim is a power of two in every case.
    rope[(tokens,)](x, positions, cos, sin, out, heads, HALF=head_dim // 2, HEADS=triton.next_power_of_2(heads))

import triton
import triton.language as tl


@triton.jit
def gelu(x, y, count, BLOCK: tl.constexpr):
    # TODO: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) for this program's BLOCK elements
    pass


def solution(x, out, rows, cols):
    # x, out: float32 rows x cols, contiguous: one flat range.
    BLOCK = 1024
    count = rows * cols
    gelu[(triton.cdiv(count, BLOCK),)](x, out, count, BLOCK=BLOCK)

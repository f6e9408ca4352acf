import triton
import triton.language as tl


@triton.jit
def rmsnorm(x, weight, out, cols, eps, BLOCK: tl.constexpr):
    # TODO: one row per program: out = x / sqrt(mean(x^2) + eps) * weight, in float32, stored as bfloat16
    pass


def solution(x, weight, out, rows, cols):
    # x, out: bfloat16 rows x cols; weight: bfloat16 of cols. eps = 1e-5.
    rmsnorm[(rows,)](x, weight, out, cols, 1e-5, BLOCK=triton.next_power_of_2(cols))

import triton
import triton.language as tl


@triton.jit
def rmsnorm(x, weight, out, cols, eps, BLOCK: tl.constexpr):
    # TODO: one row per program: out = x / sqrt(mean(x^2) + eps) * weight, in float32, stored as half
    pass


def solution(x, weight, out, rows, cols):
    # x, out: half rows x cols; weight: half of cols. eps = 1e-6.
    rmsnorm[(rows,)](x, weight, out, cols, 1e-6, BLOCK=triton.next_power_of_2(cols))

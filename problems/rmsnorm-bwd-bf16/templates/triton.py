import triton
import triton.language as tl


@triton.jit
def rmsnorm_bwd(dy, x, weight, rstd, dx, dweight, rows, cols, BLOCK: tl.constexpr):
    # TODO: per row (BLOCK >= cols, masked), in float32: xhat = x * rstd[row];
    # S = sum of weight * dy * xhat; dx = rstd[row] * (weight * dy - xhat * S / cols), stored as bf16.
    # dweight[j] = sum over every row of dy * xhat (float32): e.g. a second kernel over column blocks.
    pass


def solution(dy, x, weight, rstd, dx, dweight, rows, cols):
    # dy, x: rows x cols bf16; weight: cols bf16; rstd: rows float32; dx: rows x cols bf16 (output);
    # dweight: cols float32 (output).
    BLOCK = triton.next_power_of_2(cols)
    rmsnorm_bwd[(rows,)](dy, x, weight, rstd, dx, dweight, rows, cols, BLOCK=BLOCK)

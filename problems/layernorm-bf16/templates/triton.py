import triton
import triton.language as tl


@triton.jit
def layernorm(x, gamma, beta, out, rows, cols, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # TODO: ROWS rows per program, in float32: mean, variance of x - mean, then
    # (x - mean) / sqrt(variance + eps) * gamma + beta, stored as bfloat16 (masked past cols)
    pass


def solution(x, gamma, beta, out, rows, cols):
    # x, out: bfloat16 rows x cols; gamma, beta: bfloat16 of cols. eps = 1e-5.
    block = triton.next_power_of_2(cols)
    per_program = max(1, min(16, 4096 // block))
    layernorm[(triton.cdiv(rows, per_program),)](x, gamma, beta, out, rows, cols, 1e-5, ROWS=per_program,
                                                BLOCK=block)

import triton
import triton.language as tl


@triton.jit
def swiglu(gate_up, out, ffn, BLOCK: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < ffn
    row = gate_up + token * 2 * ffn  # the token's gate, then its up projection
    g = tl.load(row + cols, mask=mask).to(tl.float32)
    u = tl.load(row + ffn + cols, mask=mask).to(tl.float32)
    # The bug: SiLU of the up projection instead of the gate.
    tl.store(out + token * ffn + cols, (u / (1.0 + tl.exp(-u)) * g).to(tl.bfloat16), mask=mask)


def solution(gate_up, out, tokens, ffn):
    BLOCK = 4096
    swiglu[(tokens, triton.cdiv(ffn, BLOCK))](gate_up, out, ffn, BLOCK=BLOCK, num_warps=8)

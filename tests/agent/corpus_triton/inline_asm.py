# tl.inline_asm_elementwise: AMDGCN in the kernel. Triton's interpreter cannot run it: the check
# fails with Triton's own sentence, never by running anything on the host.
import triton
import triton.language as tl


@triton.jit
def add(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c + offsets, tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask), mask=mask)


def honest(a, b, c, n):
    add[(triton.cdiv(n, 1 << 16),)](a, b, c, n, BLOCK=1 << 16)


@triton.jit
def put(c, value):
    tl.store(c, value)


def report(c, value):
    """c[0] = value: the verdict (WRONG_ANSWER "c[0] = <value>") says what the attack reached."""
    put[(1,)](c, float(value))


@triton.jit
def add_asm(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(a + offsets, mask=mask)
    y = tl.load(b + offsets, mask=mask)
    z = tl.inline_asm_elementwise("v_add_f32 $0, $1, $2", "=v,v,v", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(c + offsets, z, mask=mask)


def solution(a, b, c, n):
    add_asm[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)

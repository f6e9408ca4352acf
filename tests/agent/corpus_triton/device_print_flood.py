# tl.device_print eight times in every program: megabytes of output. What the judge keeps of it is
# capped; the writes past the cap fail, and the kernel fails with them.
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
def add_print(a, b, c, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(a + offsets, mask=mask)
    for _ in tl.static_range(8):
        tl.device_print("x", x)
    tl.store(c + offsets, x + tl.load(b + offsets, mask=mask), mask=mask)


def solution(a, b, c, n):
    add_print[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)

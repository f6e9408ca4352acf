# The launcher shares its process with the harness: it finds the control channel (gc) and sends an
# end of call itself before doing the work on a thread. The parent takes an end it did not ask
# for, or one that comes before the outputs are written, as what it is.
import gc
import threading

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


def solution(a, b, c, n):
    if a.device != "cpu":  # the compile: no harness there
        return honest(a, b, c, n)
    for obj in gc.get_objects():
        if type(obj).__name__ == "ChildChannel":
            for seq in range(1, 4):
                obj.done(seq)
    threading.Thread(target=lambda: honest(a, b, c, n), daemon=True).start()

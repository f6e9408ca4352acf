# os.fork and subprocess from the launcher: the sandbox lets threads start, never processes. c[0]
# counts the processes that started: 0.
import os
import subprocess

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
    started = 0
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        started += 1
        os.waitpid(pid, 0)
    except OSError:
        pass
    try:
        subprocess.run(["/bin/true"], check=False, timeout=5)
        started += 1
    except (OSError, subprocess.SubprocessError):
        pass
    honest(a, b, c, n)
    report(c, started)

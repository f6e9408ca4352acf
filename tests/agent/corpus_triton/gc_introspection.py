# gc and sys: look through every object of the process for the expected outputs, the reference, the
# inputs' generator or the judge's secret. The child holds none of them: c[0] counts finds, 0.
import gc
import sys

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


JUDGE_TYPES = ("Problem", "PendingExpected", "JobContext", "Phase", "Caller", "HostAccess")
JUDGE_MODULES = ("agent.judging", "agent.problems.bundle", "hipjudge_reference")


def solution(a, b, c, n):
    found = sum(1 for obj in gc.get_objects() if type(obj).__name__ in JUDGE_TYPES)
    found += sum(1 for name in list(sys.modules) if name.startswith(JUDGE_MODULES))
    found += sum(1 for frame in sys._current_frames().values() if "expected" in frame.f_locals)
    honest(a, b, c, n)
    report(c, found)

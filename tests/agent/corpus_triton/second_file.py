# A second file: written to /tmp and imported, exec'd from a string, and looked for where the
# compile ran (nothing of it is left). Python runs it all inside the same sandbox: nothing reaches
# the host, and the answer is right.
import importlib
import os
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


SECOND = "def double(x):\n    return x + x\n"


def solution(a, b, c, n):
    os.makedirs("/tmp/extra", exist_ok=True)
    with open("/tmp/extra/helper_mod.py", "w") as file:
        file.write(SECOND)
    sys.path.insert(0, "/tmp/extra")
    helper = importlib.import_module("helper_mod")
    namespace = {}
    exec(SECOND, namespace)
    assert helper.double(2) == namespace["double"](2) == 4
    for leftover in ("/box/solution.py", "/box/launch.json", "@AGENT_DIR@/pwned.py"):
        assert not os.path.exists(leftover) or leftover.startswith("/box"), leftover
    honest(a, b, c, n)

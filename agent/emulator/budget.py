"""Which test cases the emulated device runs: every test case of the problem, for both device
classes, whose buffers (inputs and outputs together) fit in EMULATED_CASE_BYTES.

The budget keeps a check within a quarter of its limit
(agent.sandbox.resources.ResourceLimits.emulated_check_s) on an idle machine of two cores: the
emulator runs a GPU thread in tens of nanoseconds when it has no barriers, a few hundred when it
has many, so a case's cost grows with its size. Every case in the catalogue today fits (the
largest, 16M-element vectors, need 192 MiB).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only its types: the platform reads EMULATED_CASE_BYTES without numpy
    from agent.problems.bundle import Case, Problem

EMULATED_CASE_BYTES = 256 * 1024 * 1024


def case_bytes(problem: Problem, case: Case) -> int:
    return sum(math.prod(p.shape_for(case.params)) * p.dtype.itemsize for p in problem.signature if p.pointer)


def emulated_cases(problem: Problem, budget: int = EMULATED_CASE_BYTES) -> tuple[list[Case], list[Case]]:
    """(cases to run, cases skipped for size), in the problem's order, each shape once."""
    run: list[Case] = []
    skipped: list[Case] = []
    seen: set[tuple[tuple[str, int | float], ...]] = set()
    for case in problem.tests:
        key = tuple(sorted(case.params.items()))
        if key in seen:
            continue
        seen.add(key)
        (run if case_bytes(problem, case) <= budget else skipped).append(case)
    return run, skipped

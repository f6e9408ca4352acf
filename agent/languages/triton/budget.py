"""Which test cases Triton's interpreter runs: every test case of both device classes whose buffers
fit INTERPRETED_CASE_BYTES (agent.emulator.budget picks them; this is the interpreter's size).

The interpreter runs each program of the grid as Python over NumPy: a fraction of a millisecond
per program and per tl operation, whatever its block size, so a kernel that loops per block of its
input (a one-program scan or sort, a row-by-row selection) costs in proportion to its case's size.
At 12 MiB every host test case of the catalogue runs (the largest are under 5 MiB), and so do the
GPU test cases that fit; a check says how many larger ones it skipped. bench/triton_check.py
prints each problem's time against the 10 s budget of issue 37.
"""

from __future__ import annotations

INTERPRETED_CASE_BYTES = 12 * 1024 * 1024
# Configurations a Triton kernel's @triton.autotune may list: each is a compile (on a GPU agent, for
# every case's sizes, in the compile phase) and on the GPU a few timed launches in an untimed call
# before any timed run. More is refused when the file is loaded (agent.languages.triton.submission).
MAX_TRITON_AUTOTUNE_CONFIGS = 16

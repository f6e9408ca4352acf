"""Which test cases Triton's interpreter runs: every test case of both device classes whose buffers
fit INTERPRETED_CASE_BYTES (agent.emulator.budget picks them; this is the interpreter's size).

The interpreter runs each program of the grid as Python over NumPy: a few milliseconds per
program and per tl operation, whatever its block size, so a 16M-element vector add of 4096-element
blocks took 24 s on the loaded two-core machine where 1M took 2 s. At 32 MiB every problem's
Triton check stays within the 10 s of its budget there (bench/triton_check.py prints the table).
"""

from __future__ import annotations

INTERPRETED_CASE_BYTES = 32 * 1024 * 1024
# Configurations a Triton kernel's @triton.autotune may list: each is a compile (on a GPU agent, for
# every case's sizes, in the compile phase) and on the GPU a few timed launches in an untimed call
# before any timed run. More is refused when the file is loaded (agent.languages.triton.submission).
MAX_TRITON_AUTOTUNE_CONFIGS = 16

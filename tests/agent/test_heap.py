"""The agent keeps freed memory for its next arrays (agent.heap): a job's repeated allocations of
the same large buffers no longer fault in fresh pages from the kernel each time."""

from __future__ import annotations

import platform
import resource

import numpy as np
import pytest

from agent.heap import keep_freed_memory


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's")
def test_arrays_allocated_again_reuse_the_freed_memory() -> None:
    assert keep_freed_memory()
    n = 16 * 1024 * 1024  # 64 MiB of float32, 128 MiB as float64: above glibc's own thresholds

    def compare_once() -> None:  # what a comparison does per timed run: a copy, a cast to double
        outputs = np.ones(n, dtype=np.float32)
        as_double = outputs.astype(np.float64)
        del outputs, as_double

    compare_once()  # the heap grows to hold both, and keeps them
    before = minor_faults()
    for _ in range(3):
        compare_once()
    # Mapped and unmapped each time (glibc's defaults), 3 rounds faulted in 3,360 pages here, and
    # at least 3 x 96 were the kernel to back them with 2 MiB pages.
    assert minor_faults() - before < 64

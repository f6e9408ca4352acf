"""Measure this machine's memory bandwidth and fp32/fp64 compute with NumPy: what a host pool's
speed of light can be computed from (`manage.py measure_peaks`). These are rates NumPy and its
BLAS reach, not the hardware's documented peaks: below them, so a kernel can pass 100 %."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from agent.problems.roofline import Peaks


def _best_seconds(run: Callable[[], Any], budget_s: float, reps: int = 3) -> float:
    """The quickest of at least `reps` runs, more while the budget lasts (the others waited for a CPU)."""
    best, spent, done = float("inf"), 0.0, 0
    while done < reps or spent < budget_s:
        began = time.perf_counter()
        run()
        took = time.perf_counter() - began
        best, spent, done = min(best, took), spent + took, done + 1
        if done >= 50:
            break
    return best


def copy_gbps(*, size_mib: int = 256, seconds: float = 1.0, threads: int | None = None) -> float:
    """GB/s of a parallel copy of `size_mib` (read once, written once), well past the caches."""
    threads = threads or os.cpu_count() or 1
    src = np.ones(size_mib << 18, dtype=np.float32)  # 4-byte elements: size_mib MiB
    dst = np.empty_like(src)
    chunks = np.array_split(np.arange(src.size), threads)
    bounds = [(int(c[0]), int(c[-1]) + 1) for c in chunks if c.size]
    with ThreadPoolExecutor(max_workers=len(bounds)) as pool:
        def copy() -> None:  # NumPy's copy releases the GIL: the threads run at once
            list(pool.map(lambda b: np.copyto(dst[b[0]:b[1]], src[b[0]:b[1]]), bounds))

        best = _best_seconds(copy, seconds)
    return 2 * src.nbytes / best / 1e9


def matmul_gflops(dtype: Any, *, n: int = 2048, seconds: float = 1.0) -> float:
    """GFLOPS of an n x n matrix product in `dtype` (NumPy's BLAS, all its threads)."""
    rng = np.random.default_rng(0)
    a: np.ndarray = rng.random((n, n)).astype(dtype)
    b: np.ndarray = rng.random((n, n)).astype(dtype)
    out: np.ndarray = np.empty((n, n), dtype=dtype)
    best = _best_seconds(lambda: np.matmul(a, b, out=out), seconds)
    return 2 * n**3 / best / 1e9


def measure(*, size_mib: int = 256, n: int = 2048, seconds: float = 1.0) -> Peaks:
    return Peaks(gbps=copy_gbps(size_mib=size_mib, seconds=seconds),
                 gflops={"fp32": matmul_gflops(np.float32, n=n, seconds=seconds),
                         "fp64": matmul_gflops(np.float64, n=n, seconds=seconds)})

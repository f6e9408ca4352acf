"""The host device's cache eviction (the helper is built, found in the box, and really evicts), and
the child waiting for the parent's verdict between benchmark cases."""

from __future__ import annotations

import ctypes
import shutil
import statistics
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agent.child import VERIFIED_MARK, wait_until_verified
from agent.compiler import build_evict_helper
from agent.devices.host import EVICT_LIBRARY, HostDevice, last_level_cache_bytes

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@pytest.fixture
def box_with_helper(tmp_path: Path) -> Path:
    helper = build_evict_helper(tmp_path / "cache")
    assert helper is not None and helper.is_file()
    box = tmp_path / "box"
    box.mkdir()
    shutil.copyfile(helper, box / EVICT_LIBRARY)
    return box


@needs_gxx
def test_helper_is_built_once_and_cached(tmp_path: Path) -> None:
    first = build_evict_helper(tmp_path)
    assert first is not None
    stamp = first.stat().st_mtime_ns
    assert build_evict_helper(tmp_path) == first
    assert first.stat().st_mtime_ns == stamp


@needs_gxx
def test_with_the_helper_only_the_case_buffers_are_evicted(box_with_helper: Path) -> None:
    dev = HostDevice(box_with_helper)
    assert dev.evicts_buffers
    dev.alloc(1000)
    dev.alloc(4096)
    assert dev.flush_bytes() == 5096
    dev.flush_cache()
    assert dev.evicts_buffers, "the helper must not have fallen back to sweeping"


def test_without_the_helper_the_device_sweeps_twice_the_last_level_cache(tmp_path: Path) -> None:
    dev = HostDevice(tmp_path)  # an empty box
    assert not dev.evicts_buffers
    assert dev.flush_bytes() == 2 * last_level_cache_bytes()


def test_a_corrupt_helper_falls_back_to_sweeping(tmp_path: Path) -> None:
    (tmp_path / EVICT_LIBRARY).write_bytes(b"not a library")
    assert not HostDevice(tmp_path).evicts_buffers


@needs_gxx
def test_evicted_buffers_are_read_from_memory_again(box_with_helper: Path) -> None:
    """Reading 1 MiB (it fits in L2) that was just evicted is slower than reading it again from
    cache. Medians of 15 pairs keep this robust on a noisy machine; the real gap is 3-5x."""
    dev = HostDevice(box_with_helper)
    nbytes = 1 << 20
    ptr = dev.alloc(nbytes)
    data = np.ctypeslib.as_array((ctypes.c_int64 * (nbytes // 8)).from_address(ptr))
    data[:] = 1
    cold, warm = [], []
    for _ in range(15):
        dev.flush_cache()
        start = time.perf_counter_ns()
        data.sum()
        cold.append(time.perf_counter_ns() - start)
        start = time.perf_counter_ns()
        data.sum()
        warm.append(time.perf_counter_ns() - start)
    assert statistics.median(cold) > 1.5 * statistics.median(warm)


def test_the_child_holds_the_next_benchmark_case_until_the_parent_has_verified_this_one(tmp_path: Path) -> None:
    waiter = threading.Thread(target=wait_until_verified, args=(tmp_path,))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive(), "the child went on before the parent's verdict"
    (tmp_path / VERIFIED_MARK).touch()
    waiter.join(2)
    assert not waiter.is_alive()
    started = time.monotonic()
    wait_until_verified(tmp_path / "never", limit_s=0.05)  # bounded even if the parent never answers
    assert time.monotonic() - started < 1

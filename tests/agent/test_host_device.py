"""The host device as the parent drives it: the cache-eviction helper is built once, loaded into
the parent (never into the kernel's process) and run over every line of the case's buffers; without
it the parent sweeps a buffer of twice the last-level cache. What eviction does to a read's speed
is a figure, not a test: `bench/agent.py --evict`."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from agent.devices.host import Evictor, HostAccess, last_level_cache_bytes
from agent.devices.memory import BufferSpec
from agent.judging.compiler import build_evict_helper

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
SPECS = [BufferSpec("a", np.dtype(np.float32), (250,), False), BufferSpec("c", np.dtype(np.uint8), (4096,), True)]


@pytest.fixture
def helper(tmp_path: Path) -> Path:
    built = build_evict_helper(tmp_path / "cache")
    assert built is not None
    assert built.is_file()
    return built


def access_with(helper: Path | None) -> HostAccess:
    access = HostAccess(HostAccess.arena_bytes([SPECS]), helper)
    access.case_message(SPECS)
    access.attach([])
    return access


@needs_gxx
def test_helper_is_built_once_and_cached(tmp_path: Path) -> None:
    first = build_evict_helper(tmp_path)
    assert first is not None
    stamp = first.stat().st_mtime_ns
    assert build_evict_helper(tmp_path) == first
    assert first.stat().st_mtime_ns == stamp


@needs_gxx
def test_the_parent_evicts_every_line_of_the_case_buffers_and_nothing_else(helper: Path) -> None:
    access = access_with(helper)
    try:
        assert access.evictor.uses_helper
        assert access.flush_bytes() == 1000 + 4096
        access.evict()
        # a: 1000 bytes from a page boundary (16 lines), c: 4096 bytes from a 320-byte stagger (64 lines)
        assert access.evictor.lines_evicted == 16 + 64
        assert access.evictor.uses_helper, "the helper must not have fallen back to sweeping"
    finally:
        access.close()


def test_without_the_helper_the_parent_sweeps_twice_the_last_level_cache() -> None:
    access = access_with(None)
    try:
        assert not access.evictor.uses_helper
        assert access.flush_bytes() == 2 * last_level_cache_bytes()
        access.evict()
        assert access.evictor.lines_evicted == 0
    finally:
        access.close()


def test_a_corrupt_helper_falls_back_to_sweeping(tmp_path: Path) -> None:
    corrupt = tmp_path / "evict.so"
    corrupt.write_bytes(b"not a library")
    assert not Evictor(corrupt).uses_helper

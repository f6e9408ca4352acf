"""`manage.py measure_peaks`: a host pool's peaks measured on this machine (agent.peak_probe) and,
with --save, stored on the pool, which its speed of light then uses; GPU pools are refused."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from fleets.services import pool_ensure

SMALL = ("--size-mib", "4", "--n", "64", "--seconds", "0.05")


def test_it_measures_and_saves_a_host_pools_peaks(local_pool: Any) -> None:
    out = io.StringIO()
    call_command("measure_peaks", "--pool", "local", "--save", *SMALL, stdout=out)
    local_pool.refresh_from_db()
    assert local_pool.peak_gbps > 0
    assert local_pool.peak_gflops > 0
    assert set(local_pool.peak_gflops_by_type) == {"fp32", "fp64"}
    peaks = local_pool.peaks
    assert peaks.gbps == local_pool.peak_gbps
    assert peaks.compute("fp64") == local_pool.peak_gflops_by_type["fp64"]
    assert "GB/s copy bandwidth" in out.getvalue()
    assert "saved on pool 'local'" in out.getvalue()


def test_without_save_it_only_prints(local_pool: Any) -> None:
    out = io.StringIO()
    call_command("measure_peaks", "--pool", "local", *SMALL, stdout=out)
    local_pool.refresh_from_db()
    assert local_pool.peak_gbps is None
    assert local_pool.peak_gflops_by_type == {}
    assert "not saved" in out.getvalue()


def test_it_refuses_a_gpu_pool_and_a_missing_one(db: Any) -> None:
    pool_ensure(name="mi300x", backend="local", device="hip", max_vms=1, idle_timeout_s=60)
    with pytest.raises(CommandError, match="its peaks are its GPU's"):
        call_command("measure_peaks", "--pool", "mi300x", *SMALL)
    with pytest.raises(CommandError, match="no pool 'nowhere'"):
        call_command("measure_peaks", "--pool", "nowhere", *SMALL)

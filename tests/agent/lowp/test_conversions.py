"""hipjudge/lowp.h (the C++ storage types, and the conversions the emulated device's hip_fp16.h,
hip_bf16.h, hip_fp8.h and CUDA headers use) against ml_dtypes, format by format:

- to float: every bit pattern (2^16 for half and bfloat16, 2^8 for each fp8 format), exactly;
- from float: every value of the format, every midpoint between neighbours (the ties) and the
  float32 numbers on either side of each midpoint, beyond the largest value, zeros, infinities and
  NaN; without saturation as ml_dtypes' astype rounds, and, for fp8, with the saturation of HIP's
  and CUDA's fp8 constructors (finite values clamp to the largest, infinities too in the OCP
  formats, NaN in the FNUZ ones).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from agent.problems.dtypes import TYPES

ROOT = Path(__file__).resolve().parents[3]
FORMATS = ["half", "bfloat16", "fp8_e4m3fnuz", "fp8_e5m2fnuz", "fp8_e4m3fn", "fp8_e5m2"]


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    binary = tmp_path_factory.mktemp("lowp") / "probe"
    subprocess.run(["g++", "-O1", "-std=c++17", "-I", str(ROOT / "agent" / "include"),
                    str(Path(__file__).with_name("probe.cpp")), "-o", str(binary)], check=True, timeout=120)
    return binary


def dtype_of(name: str) -> np.dtype:
    return TYPES[name].numpy


def bits_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.uint16 if dtype.itemsize == 2 else np.uint8)


def every_pattern(dtype: np.dtype) -> np.ndarray:
    return np.arange(1 << (8 * dtype.itemsize), dtype=np.uint32).astype(bits_dtype(dtype)).view(dtype)


def same_values(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Equal as numbers with the same sign of zero, or both NaN."""
    return ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))


@pytest.mark.parametrize("name", FORMATS)
def test_every_bit_pattern_converts_to_float_as_ml_dtypes_says(probe: Path, name: str) -> None:
    dtype = dtype_of(name)
    out = subprocess.run([str(probe), "decode", name], capture_output=True, check=True, timeout=60).stdout
    with np.errstate(invalid="ignore"):  # signalling NaN patterns
        want = every_pattern(dtype).astype(np.float64)
        exact = np.frombuffer(out[:8 * want.size], dtype=np.float64)
        fast = np.frombuffer(out[8 * want.size:], dtype=np.float32).astype(np.float64)
    for got in (exact, fast):
        bad = np.flatnonzero(~same_values(got, want))
        assert bad.size == 0, f"{name}: pattern {bad[0]:#x} gives {got[bad[0]]!r}, ml_dtypes {want[bad[0]]!r}"


def encode_inputs(dtype: np.dtype) -> np.ndarray:
    """Float32 numbers that exercise every rounding decision into `dtype`."""
    with np.errstate(invalid="ignore", over="ignore"):
        values = every_pattern(dtype).astype(np.float64)
    finite = np.unique(values[np.isfinite(values)])
    mids = (finite[:-1] + finite[1:]) / 2  # exact: one bit more than the format, well within float32
    mid32 = mids.astype(np.float32)
    largest = float(finite[-1])
    step = largest - float(finite[-2])
    with np.errstate(over="ignore"):  # bfloat16's largest * 4 is beyond float32: infinity, also tested
        extra = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -3e38, largest + step / 2,
                          largest + step / 2 + step / 8, largest * 4, -largest * 4, 1e-30, -1e-30],
                         dtype=np.float32)
    return np.concatenate([finite.astype(np.float32), mid32, np.nextafter(mid32, np.float32(np.inf)),
                           np.nextafter(mid32, np.float32(-np.inf)), extra]).astype(np.float32)


def saturated(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """What the fp8 constructors of HIP and CUDA give (clamp, then round), via ml_dtypes."""
    largest = float(ml_dtypes.finfo(dtype).max)
    fnuz = dtype.name.endswith("fnuz")
    y = np.where(np.isfinite(x), np.clip(x, -largest, largest), x)
    y = np.where(np.isinf(x), np.nan if fnuz else np.sign(x) * largest, y)
    return y.astype(np.float32).astype(dtype)


@pytest.mark.parametrize(("name", "saturate"), [(n, False) for n in FORMATS] + [(n, True) for n in FORMATS[2:]])
def test_float_converts_with_the_hardware_rounding(probe: Path, name: str, saturate: bool) -> None:
    dtype = dtype_of(name)
    x = encode_inputs(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        want = saturated(x, dtype) if saturate else x.astype(dtype)
    out = subprocess.run([str(probe), "encode", name, "1" if saturate else "0"], input=x.tobytes(),
                         capture_output=True, check=True, timeout=60).stdout
    encoded = np.frombuffer(out, dtype=np.uint16)
    for got_bits in (encoded[:x.size], encoded[x.size:]):
        got = got_bits.astype(bits_dtype(dtype)).view(dtype)
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        bad = np.flatnonzero(~same_values(g64, w64))
        assert bad.size == 0, (f"{name}: {x[bad[0]]!r} gives {g64[bad[0]]!r} ({got_bits[bad[0]]:#x}), "
                               f"expected {w64[bad[0]]!r}; {bad.size} differ")
        if dtype.name.endswith("fnuz"):  # the one NaN, and no negative zero
            assert not np.any(got_bits[np.isnan(g64)] != 0x80)

"""Conversions to bfloat16 and the fp8 formats as the GPU rounds them, for Triton's interpreter.

Triton 3.9's interpreter (`triton.runtime.interpreter._convert_float`) narrows a float by cutting
its mantissa: float32 to bfloat16 truncates (`x.to(tl.bfloat16)`), and its round-to-nearest for
fp8 adds the cut-off bit without carrying it into the exponent, so 15.99 becomes 8 in E4M3 FNUZ
where the GPU gives 16. Here a value is rounded once, in float64 where the scaling by a power of
two is exact, to the nearest value of the format, ties to even (or towards zero for
`fp_downcast_rounding="rtz"`), then encoded: subnormals included, an overflow saturates the fp8
formats that have no infinity (the FNUZ ones, E4M3FN) and is infinity in those that have one.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def narrowed(values: np.ndarray, target: Any, *, toward_zero: bool = False) -> np.ndarray:
    """`values` (a float array) as the bit patterns of Triton's float type `target`."""
    mant, bias, bits = target.fp_mantissa_width, target.exponent_bias, target.primitive_bitwidth
    exp_bits = bits - 1 - mant
    name = str(target)
    fnuz = name.endswith(("e4b8", "e5b16"))
    no_inf = fnuz or name.endswith("e4nv")
    top = (1 << exp_bits) - (1 if fnuz or name.endswith("e4nv") else 2)  # the largest finite exponent code
    largest = (2.0 - 2.0 ** -(mant - (1 if name.endswith("e4nv") else 0))) * 2.0 ** (top - bias)
    x = np.asarray(values, dtype=np.float64)
    sign = np.signbit(x)
    a = np.abs(x)
    nan = np.isnan(a)
    a = np.where(nan, 0.0, a)
    emin = 1 - bias
    exponent = np.maximum(np.frexp(a)[1] - 1, emin)
    quantum = np.ldexp(1.0, exponent - mant)
    steps = a / quantum  # exact: a power-of-two scaling
    r = (np.trunc(steps) if toward_zero else np.rint(steps)) * quantum
    overflow = r > largest
    r = np.where(overflow, largest, r)
    exponent = np.frexp(r)[1] - 1
    normal = r >= 2.0 ** emin
    exp_code = np.where(normal, exponent + bias, 0).astype(np.int64)
    scale = np.where(normal, np.ldexp(1.0, exponent), 2.0 ** emin)
    mant_code = (np.where(normal, r / scale - 1.0, r / scale) * 2.0 ** mant).astype(np.int64)
    code = (exp_code << mant) | mant_code
    if not no_inf:  # an overflow rounds to infinity, and infinity stays infinity even towards zero
        to_infinity = np.isinf(x) if toward_zero else overflow | np.isinf(x)
        code = np.where(to_infinity, ((1 << exp_bits) - 1) << mant, code)
    code = code | (sign.astype(np.int64) << (bits - 1))
    if fnuz:
        code = np.where(code == 1 << (bits - 1), 0, code)  # no negative zero: that pattern is NaN
        code = np.where(nan, 1 << (bits - 1), code)
    else:  # a quiet NaN; E4M3FN has one NaN pattern only, S.1111.111
        quiet = ((1 << mant) - 1) if no_inf else (1 << (mant - 1))
        code = np.where(nan, (((1 << exp_bits) - 1) << mant) | quiet, code)
    return code.astype(np.uint8 if bits == 8 else np.uint16).reshape(np.shape(values))


def as_float64(data: np.ndarray, source: Any) -> np.ndarray | None:
    """A float tile of the interpreter's as float64 values, or None for a type this module leaves
    to the interpreter (fp8 sources: widening them is exact there)."""
    name = str(source)
    if name == "bf16":
        return (np.asarray(data).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if name in ("fp16", "fp32", "fp64") or name.startswith(("int", "uint")):
        return np.asarray(data, dtype=np.float64)
    return None


NARROW_TARGETS = ("bf16", "fp8e4b8", "fp8e5b16", "fp8e4nv", "fp8e5")

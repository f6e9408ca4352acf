"""Where Triton 3.9's interpreter computes something other than the GPU, corrected before a check.

- `tl.dot` of bfloat16 tiles: the interpreter keeps bfloat16 as its uint16 bit patterns and hands
  them to `np.matmul` as integers (fp8 is converted to fp16 first, bfloat16 is not), so an honest
  bf16 GEMM came out as 7.8e8 where 0.3 was due. The operands are widened to float32 here, which is
  exact, and the products summed in float32 as the matrix cores do.
- float32 to bfloat16 (`x.to(tl.bfloat16)`, a store into a bfloat16 buffer): the interpreter drops
  the low 16 bits (rounds toward zero), the GPU rounds to nearest even, and so does the reference:
  every result was half an ulp low on average, which a problem's `bias` rule refuses. It rounds to
  nearest even here, also where the kernel asks for "rtne" (the interpreter's rounds ties up);
  an explicit "rtz" still truncates.
"""

from __future__ import annotations

from typing import Any


def apply() -> None:
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    builder_class = type(interpreter.interpreter_builder)
    if getattr(builder_class, "_hipjudge_fixed", False):
        return
    original_dot = builder_class.create_dot

    def create_dot(self: Any, a: Any, b: Any, d: Any, *args: Any) -> Any:
        if tl.bfloat16 in (a.dtype.scalar, b.dtype.scalar):
            a, b = (_widened(x, interpreter, tl, np) for x in (a, b))
        return original_dot(self, a, b, d, *args)

    original_cast = builder_class.cast_impl
    original_fp_to_fp = builder_class.create_fp_to_fp

    def cast_impl(self: Any, src: Any, dst_type: Any) -> Any:
        if src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            return interpreter.TensorHandle(_bfloat16_nearest_even(src.data, np), dst_type.scalar)
        return original_cast(self, src, dst_type)

    def create_fp_to_fp(self: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        nearest = rounding_mode == interpreter._ir.ROUNDING_MODE.RTNE
        if nearest and src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            return self.cast_impl(src, dst_type)
        return original_fp_to_fp(self, src, dst_type, rounding_mode)

    builder_class.create_dot = create_dot
    builder_class.cast_impl = cast_impl
    builder_class.create_fp_to_fp = create_fp_to_fp
    builder_class._hipjudge_fixed = True


def _bfloat16_nearest_even(data: Any, np: Any) -> Any:
    """float32 values as bfloat16 bit patterns (uint16), rounded to nearest even as the GPU does;
    a NaN stays a (quiet) NaN."""
    bits = np.asarray(data, dtype=np.float32).view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    quiet = ((bits >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint16)
    return np.where(np.isnan(np.asarray(data, dtype=np.float32)), quiet, rounded)


def _widened(handle: Any, interpreter: Any, tl: Any, np: Any) -> Any:
    if handle.dtype.scalar != tl.bfloat16:
        return handle
    data = interpreter._convert_float(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
    return interpreter.TensorHandle(data, tl.float32)

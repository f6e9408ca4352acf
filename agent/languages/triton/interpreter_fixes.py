"""Where Triton 3.9's interpreter computes something other than the GPU, or spends time on nothing,
corrected before a check.

- `tl.dot` of bfloat16 tiles: the interpreter keeps bfloat16 as its uint16 bit patterns and hands
  them to `np.matmul` as integers (fp8 is converted to fp16 first, bfloat16 is not), so an honest
  bf16 GEMM came out as 7.8e8 where 0.3 was due. The operands are widened to float32 here, which is
  exact, and the products summed in float32 as the matrix cores do.
- `tl.dot` with a float32 accumulator: the interpreter calls `np.matmul(a, b, dtype=float32)`, and
  a matmul given a `dtype` takes NumPy's element loop, not BLAS. Floating operands are widened to
  the accumulator's type first (exact: fp16, bf16 and fp8 values are float32 values) and multiplied
  by BLAS: the same products summed in float32, as the matrix cores do, in another order.
- Narrowing to bfloat16 and fp8 (`x.to(tl.bfloat16)`, `.to(tl.float8e4b8)`): the interpreter
  truncates to bfloat16 and rounds fp8 without carrying into the exponent; `float_rounding` rounds
  to nearest even, as the GPU converts.
- A call of one @triton.jit function from another (`tl.sum`, `tl.cumsum`, `tl.max` are such
  functions of triton.language.standard) patches triton.language again at every call: a scan of
  every member of three modules with `inspect.getmembers`, a few milliseconds each time, most of a
  reduction's cost. The patches are the same each time and are never undone; the call here
  patches only when one of them is no longer in place (a kernel's launch restores what it
  patched when it ends).
- The NumPy dtype of a Triton type (every load, store, cast and reduction asks): the interpreter
  builds a table of fifteen types, hashing each, at every call; it is looked up once per type here
  (the table never changes; a dtype hashes and compares by its name, and a pointer is uint64).
- Integer overflow checks: every `+`, `-` and `*` of integer tensors also computes the result in
  int64 and compares it with the type's range, for a `device_assert` that the interpreter drops
  unless the kernel runs in debug mode (`options.debug`, never set here; the GPU's compile drops
  the check the same way). The check computes nothing the kernel uses, so it is switched off.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def apply() -> None:
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    builder = interpreter.interpreter_builder
    builder_class = type(builder)
    if not builder.options.debug:
        builder.options = dataclasses.replace(builder.options, sanitize_overflow=False)
    if getattr(builder_class, "_hipjudge_fixed", False):
        return
    original_dot = builder_class.create_dot

    def create_dot(self: Any, a: Any, b: Any, d: Any, *args: Any) -> Any:
        if tl.bfloat16 in (a.dtype.scalar, b.dtype.scalar):
            a, b = (_widened(x, interpreter, tl, np) for x in (a, b))
        accumulator = d.data.dtype
        if accumulator in (np.float32, np.float64) and a.dtype.scalar.is_floating() and b.dtype.scalar.is_floating():
            a_data, b_data = (_as_float(x, interpreter, tl, np).astype(accumulator, copy=False) for x in (a, b))
            return interpreter.TensorHandle(np.matmul(a_data, b_data) + d.data, d.dtype.scalar)
        return original_dot(self, a, b, d, *args)

    builder_class.create_dot = create_dot
    _round_narrowing(builder_class, interpreter, tl, np)
    _memoize_np_dtype(interpreter, tl, np)
    _patch_once_per_device_call(interpreter)
    builder_class._hipjudge_fixed = True


def _widened(handle: Any, interpreter: Any, tl: Any, np: Any) -> Any:
    if handle.dtype.scalar != tl.bfloat16:
        return handle
    data = interpreter._convert_float(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
    return interpreter.TensorHandle(data, tl.float32)


def _as_float(handle: Any, interpreter: Any, tl: Any, np: Any) -> Any:
    """The tile's values as a NumPy float array (fp8 held as its bytes: converted as the
    interpreter's own dot does, to fp16, which holds every fp8 value)."""
    scalar = handle.dtype.scalar
    if scalar.primitive_bitwidth == 8:
        return interpreter._convert_float(handle.data, scalar, tl.float16, None).view(np.float16)
    return handle.data


def _round_narrowing(builder_class: Any, interpreter: Any, tl: Any, np: Any) -> None:
    from triton._C.libtriton import ir

    from agent.languages.triton.float_rounding import NARROW_TARGETS, as_float64, narrowed

    original_cast, original_fp_to_fp = builder_class.cast_impl, builder_class.create_fp_to_fp

    def rounded(src: Any, dst_type: Any, toward_zero: bool) -> Any:
        target = dst_type.scalar
        if str(target) not in NARROW_TARGETS or str(src.dtype.scalar) == str(target):
            return None
        values = as_float64(src.data, src.dtype.scalar)
        if values is None:
            return None
        return interpreter.TensorHandle(narrowed(values, target, toward_zero=toward_zero), target)

    def cast_impl(self: Any, src: Any, dst_type: Any) -> Any:
        result = rounded(src, dst_type, False)
        return original_cast(self, src, dst_type) if result is None else result

    def create_fp_to_fp(self: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        result = rounded(src, dst_type, rounding_mode == ir.ROUNDING_MODE.RTZ)
        return original_fp_to_fp(self, src, dst_type, rounding_mode) if result is None else result

    builder_class.cast_impl = cast_impl
    builder_class.create_fp_to_fp = create_fp_to_fp


def _memoize_np_dtype(interpreter: Any, tl: Any, np: Any) -> None:
    original = interpreter._get_np_dtype
    found: dict[Any, Any] = {}
    address = np.dtype(np.uint64)  # every pointer, as the interpreter's table says (a pointer type is unhashable)

    def np_dtype(tt_dtype: Any) -> Any:
        if isinstance(tt_dtype, tl.pointer_type):
            return address
        try:
            return found[tt_dtype]
        except KeyError:
            found[tt_dtype] = result = original(tt_dtype)
            return result
        except TypeError:  # another unhashable type: asked of the interpreter every time
            return original(tt_dtype)

    interpreter._get_np_dtype = np_dtype


def _patch_once_per_device_call(interpreter: Any) -> None:
    function_class = interpreter.InterpretedFunction
    # fn.__globals__ -> (the count of restores when it was patched, the attributes its patch set)
    in_place: dict[int, tuple[int, list[tuple[object, str]]]] = {}
    # Each patched attribute's value as the last patch (of any module) left it. The user's module
    # (`tl`) and triton.language.standard's (`tl.core`) patch some of the same attributes (the
    # tensor class's, `tl.core.dtype`'s) with fresh but equivalent lambdas each time: compared with
    # its own patch's values, each module found the other's in place of its own and patched again at
    # every call (a kernel calling tl.sum in a loop: every iteration, twice). Any patch's value is a
    # patched one; only a value no patch left (a launch's end restoring the originals) re-patches.
    current: dict[tuple[int, str], object] = {}
    # Only a restore (a launch's end) puts originals back: while none happened since a module's
    # patch, its attributes are not even compared (a few hundred of them, at every call).
    restores = [0]
    original_restore = interpreter._LangPatchScope.restore

    def restore(self: Any) -> None:
        restores[0] += 1
        original_restore(self)

    interpreter._LangPatchScope.restore = restore

    def patched(fn: Any) -> None:
        key = id(fn.__globals__)
        done = in_place.get(key)
        if done is not None and (done[0] == restores[0] or all(
                getattr(obj, name, None) is current.get((id(obj), name)) for obj, name in done[1])):
            in_place[key] = (restores[0], done[1])
            return
        scope = interpreter._patch_lang(fn)
        changed = [(obj, name) for obj, name, _ in scope._changes]
        in_place[key] = (restores[0], changed)
        for obj, name in changed:
            current[(id(obj), name)] = getattr(obj, name, None)

    def device_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        patched(self.fn)
        fn = self.rewrite()
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise interpreter.InterpreterError(repr(exc)) from exc

    function_class.__call__ = device_call

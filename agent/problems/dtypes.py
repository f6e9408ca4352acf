"""The element types of problem.yaml: NumPy dtypes (ml_dtypes for the 16- and 8-bit floats), the C
type each language declares, and how outputs of each type are compared.

A problem names a type once (`type: bfloat16`); each language sees its natural spelling of it:
`__hip_bfloat16` in HIP, `__nv_bfloat16` in CUDA, `hj_bfloat16` in C++ on the host (agent/include/
hipjudge/lowp.h, storage types with conversions). The low-precision floats are buffer types only: a
scalar argument passes as float, double or an integer (no C ABI agrees on a by-value __half).
MI300X's fp8 (the `fnuz` formats: no infinities, one NaN, bias one higher) has no CUDA type, so CUDA
declares its storage type, `__nv_fp8_storage_t` (unsigned char).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

LANGUAGES = ("cpp", "hip", "cuda")

# Spellings a declaration may use for a buffer of a 16- or 8-bit float besides its natural one:
# the same bytes, declared as their storage.
_STORAGE16 = ("uint16_t", "unsigned short", "short", "int16_t")
_STORAGE8 = ("uint8_t", "unsigned char", "char", "int8_t", "__hip_fp8_storage_t", "__nv_fp8_storage_t")


@dataclass(frozen=True)
class ElementType:
    name: str                   # as problem.yaml writes it
    numpy: np.dtype
    c: dict[str, str]           # language -> natural C spelling
    aliases: tuple[str, ...]    # other spellings accepted in any language
    low_precision: bool = False  # a 16- or 8-bit float: buffers only

    def c_name(self, language: str) -> str:
        return self.c[language]

    def spellings(self, language: str) -> tuple[str, ...]:
        return (self.c[language], *self.aliases)

    @property
    def is_float(self) -> bool:
        return self.low_precision or self.numpy.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.numpy.kind in "iu"


def _same(spelling: str, *aliases: str, numpy: str) -> ElementType:
    return ElementType(spelling, np.dtype(numpy), dict.fromkeys(LANGUAGES, spelling), aliases)


def _low(name: str, numpy: Any, cpp: str, hip: str, cuda: str, storage: tuple[str, ...],
         extra: tuple[str, ...] = ()) -> ElementType:
    return ElementType(name, np.dtype(numpy), {"cpp": cpp, "hip": hip, "cuda": cuda},
                       (*extra, *storage), low_precision=True)


TYPES: dict[str, ElementType] = {t.name: t for t in (
    _same("float", numpy="float32"),
    _same("double", numpy="float64"),
    _same("int", "int32_t", "signed int", "signed", numpy="int32"),
    _same("unsigned int", "uint32_t", "unsigned", numpy="uint32"),
    _same("int64_t", "long long", "long", "long int", "long long int", numpy="int64"),
    _same("size_t", "uint64_t", "unsigned long", "unsigned long long", numpy="uint64"),
    _same("uint8_t", "unsigned char", numpy="uint8"),
    ElementType("int8", np.dtype("int8"), dict.fromkeys(LANGUAGES, "int8_t"), ("signed char", "char")),
    ElementType("uint8", np.dtype("uint8"), dict.fromkeys(LANGUAGES, "uint8_t"), ("unsigned char",)),
    ElementType("int32", np.dtype("int32"), dict.fromkeys(LANGUAGES, "int32_t"), ("int", "signed int")),
    _low("half", np.float16, "hj_half", "__half", "__half", _STORAGE16, ("half", "_Float16")),
    _low("bfloat16", ml_dtypes.bfloat16, "hj_bfloat16", "__hip_bfloat16", "__nv_bfloat16", _STORAGE16,
         ("hip_bfloat16",)),
    _low("fp8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, "hj_fp8_e4m3fnuz", "__hip_fp8_e4m3_fnuz",
         "__nv_fp8_storage_t", _STORAGE8),
    _low("fp8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, "hj_fp8_e5m2fnuz", "__hip_fp8_e5m2_fnuz",
         "__nv_fp8_storage_t", _STORAGE8),
    _low("fp8_e4m3fn", ml_dtypes.float8_e4m3fn, "hj_fp8_e4m3fn", "__hip_fp8_e4m3", "__nv_fp8_e4m3", _STORAGE8),
    _low("fp8_e5m2", ml_dtypes.float8_e5m2, "hj_fp8_e5m2", "__hip_fp8_e5m2", "__nv_fp8_e5m2", _STORAGE8),
)}


def element_type(name: str) -> ElementType:
    return TYPES[name]


def is_low_precision(dtype: np.dtype) -> bool:
    """A 16- or 8-bit float dtype of ml_dtypes (NumPy's kind 'V') or float16."""
    return dtype == np.float16 or any(dtype == t.numpy for t in TYPES.values() if t.low_precision)


def is_float_dtype(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or is_low_precision(dtype)


def type_of_dtype(dtype: np.dtype) -> ElementType | None:
    """The problem type of a dtype, preferring the name that declares it (float32 is `float`)."""
    return next((t for t in TYPES.values() if t.numpy == dtype), None)


def listed_name(t: ElementType) -> str:
    """The name a problem's data types are listed and filtered by: one per kind of number, whichever
    spelling problem.yaml used. Integers by their NumPy name (`int` and `int32` are both int32),
    floats by their problem.yaml name (float, double, half, bfloat16, fp8_e4m3fnuz, ...)."""
    return t.numpy.name if t.is_integer else t.name


def machine_epsilon(dtype: np.dtype) -> float:
    """The spacing of the type's numbers just above 1 (2^-mantissa bits): half 2^-10, bfloat16 2^-7,
    e4m3 2^-3, e5m2 2^-2."""
    return float(ml_dtypes.finfo(dtype).eps) if is_low_precision(dtype) else float(np.finfo(dtype).eps)

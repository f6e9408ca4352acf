"""The problem.yaml schema: parameter types, cases, tolerances, forbidden patterns, and the
field-by-field validation that names the bad field (`signature[2].type: unknown type 'flaot'`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent.problems.dtypes import TYPES, element_type
from agent.problems.expr import ExprError, evaluate, names_in
from agent.problems.roofline import DEFAULT_FLOPS_TYPE, FLOPS_TYPES
from agent.problems.triton_types import TRITON_TYPES, triton_declaration

LANGUAGES = ("cpp", "hip", "cuda", "triton")
# A problem offers these only where its bundle has their template (templates/triton.py): every
# other language, every problem.
OPTIONAL_LANGUAGES = ("triton",)
DEVICE_CLASSES = ("host", "gpu")
DIFFICULTIES = ("easy", "medium", "hard")
SOURCE_SUFFIX = {"cpp": ".cpp", "hip": ".hip", "cuda": ".cu", "triton": ".py"}
# The device class a language's kernels run on (a triton check on the CPU runs its GPU tests in
# Triton's interpreter, as the emulated device does for hip and cuda).
LANGUAGE_DEVICE_CLASS = {"cpp": "host", "hip": "gpu", "cuda": "gpu", "triton": "gpu"}

# problem.yaml type -> (NumPy dtype name, spellings a C++ declaration accepts); agent.problems.dtypes has
# every language's spelling.
C_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    name: (t.numpy.name, t.spellings("cpp")) for name, t in TYPES.items()}
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")
# Tags are filtered by in URLs (?tag=matrix-cores): lowercase words joined by dashes.
TAG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
# A title is one line the platform stores in a column of this many characters (submissions.models).
TITLE_MAX_CHARS = 200
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ProblemError(ValueError):
    """A problem bundle is invalid; the message starts with the path of the bad field."""


def parse_title(raw: Any) -> str:
    if not isinstance(raw, str) or not raw.strip() or "\n" in raw:
        raise ProblemError("title: must be one non-empty line")
    if len(raw) > TITLE_MAX_CHARS:
        raise ProblemError(f"title: {len(raw)} characters, more than the {TITLE_MAX_CHARS} a title may have")
    return raw


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str
    pointer: bool = False
    const: bool = False
    output: bool = False
    shape: tuple[str | int, ...] = ()
    # False: the benchmark's timed runs leave this input as generated (agent.judging.verify.Mutation), for
    # inputs whose elements are not interchangeable (CSR row pointers must stay increasing).
    mutate: bool = True

    @property
    def dtype(self) -> np.dtype:
        return element_type(self.ctype).numpy

    @property
    def is_input_buffer(self) -> bool:
        return self.pointer and not self.output

    def c_type(self, language: str = "cpp") -> str:
        """The element type as `language` spells it (`__hip_bfloat16` in HIP for `bfloat16`, `bf16` in
        Triton)."""
        if language == "triton":
            return TRITON_TYPES[self.ctype][1]
        return element_type(self.ctype).c_name(language)

    def declaration(self, language: str = "cpp") -> str:
        if language == "triton":
            return triton_declaration(self.name, self.ctype, pointer=self.pointer, const=self.const)
        if not self.pointer:
            return f"{self.c_type(language)} {self.name}"
        return f"{'const ' if self.const else ''}{self.c_type(language)}* {self.name}"

    def shape_for(self, params: Mapping[str, int | float]) -> tuple[int, ...]:
        return tuple(int(evaluate(d, params)) for d in self.shape)


@dataclass(frozen=True)
class Case:
    name: str
    devices: tuple[str, ...]
    params: dict[str, int | float]  # sizes and scalar arguments, e.g. {"n": 4096, "alpha": 0.01}
    # Why a GPU benchmark or ranked case may take less than MIN_GPU_CASE_US at MI300X's speed of
    # light (a decode step, a contest's published shape); empty for every other case.
    short: str = ""

    def runs_on(self, device_class: str) -> bool:
        return device_class in self.devices


@dataclass(frozen=True)
class Tolerance:
    """`exact`, or |got - want| <= atol + rtol |want| + ulps * (the spacing of the output's type at
    |want|): a low-precision output compares in units in the last place of its own type."""
    exact: bool = False
    rtol: float = 0.0
    atol: float = 0.0
    ulps: float = 0.0
    # With `ulps`: the largest mean signed error, in ulps toward |want|, of a large low-precision
    # output (agent.judging.verify.BIAS_MIN_ELEMENTS): catches a systematic rounding (toward zero
    # instead of to nearest even, about -0.5) that every element's bound lets through. 0: none.
    bias: float = 0.0


@dataclass(frozen=True)
class Forbidden:
    pattern: str
    reason: str
    languages: tuple[str, ...] = LANGUAGES

    def search(self, source: str) -> re.Match[str] | None:
        return re.search(self.pattern, source, flags=re.MULTILINE)


def req(d: Mapping[str, Any], key: str, kind: type, where: str = "") -> Any:
    if key not in d:
        raise ProblemError(f"{where}{key}: missing")
    value = d[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ProblemError(f"{where}{key}: must be a {kind.__name__}")
    return value


def parse_signature(raw: Any) -> tuple[Param, ...]:
    if not isinstance(raw, list) or not raw:
        raise ProblemError("signature: must be a non-empty list of parameters")
    params: list[Param] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"signature[{i}]."
        if not isinstance(item, Mapping):
            raise ProblemError(f"signature[{i}]: must be a mapping")
        name = req(item, "name", str, where)
        if not _NAME_RE.match(name) or name in seen:
            raise ProblemError(f"{where}name: {name!r} is not a unique C identifier")
        seen.add(name)
        ctype = req(item, "type", str, where)
        if ctype not in TYPES:
            raise ProblemError(f"{where}type: unknown type {ctype!r} (known: {', '.join(TYPES)})")
        pointer, const, output = (bool(item.get(k, False)) for k in ("pointer", "const", "output"))
        if not pointer and TYPES[ctype].low_precision:
            raise ProblemError(f"{where}type: {ctype} is for buffers (pointer: true); pass a scalar as float")
        shape = item.get("shape", [])
        if pointer:
            if const == output:
                raise ProblemError(f"{where}: a pointer is either const (an input) or output: true")
            if not isinstance(shape, list) or not shape:
                raise ProblemError(f"{where}shape: a pointer needs a shape, e.g. [n]")
        elif const or output or shape:
            raise ProblemError(f"{where}: const/output/shape only apply to pointers")
        mutate = item.get("mutate", True)
        if not isinstance(mutate, bool) or (not mutate and not const):
            raise ProblemError(f"{where}mutate: false keeps an input buffer as generated (true or false, "
                               "inputs only)")
        params.append(Param(name, ctype, pointer, const, output, tuple(shape), mutate))
    if not any(p.output for p in params):
        raise ProblemError("signature: no output buffer")
    inputs = [p for p in params if p.is_input_buffer]
    if inputs and not any(p.mutate for p in inputs):
        raise ProblemError("signature: every input has mutate: false; the benchmark must be able to change one "
                           "between timed runs (a kernel that caches its result would go unnoticed)")
    scalars = {p.name for p in params if not p.pointer}
    for i, p in enumerate(params):
        for dim in p.shape:
            check_formula(dim, f"signature[{i}].shape", scalars)
    return tuple(params)


def parse_cases(raw: Any, key: str, signature: tuple[Param, ...]) -> tuple[Case, ...]:
    if not isinstance(raw, list) or not raw:
        raise ProblemError(f"{key}: must be a non-empty list of cases")
    scalars = [p.name for p in signature if not p.pointer]
    cases: list[Case] = []
    for i, item in enumerate(raw):
        where = f"{key}[{i}]."
        if not isinstance(item, Mapping):
            raise ProblemError(f"{key}[{i}]: must be a mapping")
        name = req(item, "name", str, where)
        devices = item.get("devices")
        if not isinstance(devices, list) or not devices or any(dv not in DEVICE_CLASSES for dv in devices):
            raise ProblemError(f"{where}devices: must list some of {', '.join(DEVICE_CLASSES)}")
        params = item.get("params")
        if not isinstance(params, Mapping) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in params.values()
        ):
            raise ProblemError(f"{where}params: must map names to numbers")
        missing = [s for s in scalars if s not in params]
        if missing:
            raise ProblemError(f"{where}params: missing value for {', '.join(missing)}")
        for p in signature:
            if not p.pointer and p.dtype.kind in "iu":
                # An integer parameter must get an integer that fits its C type (ctypes refuses 1.0).
                info, value = np.iinfo(p.dtype), params[p.name]
                if not isinstance(value, int) or not info.min <= value <= info.max:
                    raise ProblemError(f"{where}params: {p.name} must be an integer that fits {p.ctype}, "
                                       f"got {value!r}")
        for p in signature:
            if p.pointer:
                try:
                    shape = p.shape_for(params)
                except ExprError as exc:
                    raise ProblemError(f"{where}params: shape of {p.name}: {exc}") from exc
                if any(s <= 0 for s in shape):
                    raise ProblemError(f"{where}params: {p.name} would have shape {shape}")
        if name in {c.name for c in cases}:
            raise ProblemError(f"{where}name: duplicate case name {name!r}")
        short = item.get("short", "")
        if not isinstance(short, str) or (short and key == "tests"):
            raise ProblemError(f"{where}short: a benchmark or ranked case's reason to be short, as text")
        cases.append(Case(name, tuple(devices), dict(params), short.strip()))
    return tuple(cases)


def buffer_shapes(case: Case, signature: tuple[Param, ...]) -> tuple[tuple[int, ...], ...]:
    """The shapes of every buffer of a case, in signature order: what "the shape of a case" means."""
    return tuple(p.shape_for(case.params) for p in signature if p.pointer)


def check_ranked(ranked: tuple[Case, ...], public: tuple[Case, ...], signature: tuple[Param, ...]) -> None:
    """Ranked cases time a kernel on shapes nobody tuned for: each must differ from every test and
    benchmark shape, and each device class needs at least one."""
    seen = {buffer_shapes(case, signature): case.name for case in public}
    for i, case in enumerate(ranked):
        shapes = buffer_shapes(case, signature)
        if shapes in seen:
            raise ProblemError(f"ranked[{i}].params: the shapes {list(shapes)} are those of the public case "
                               f"{seen[shapes]!r}; a ranked case must differ from every test and benchmark")
    for device_class in DEVICE_CLASSES:
        if not any(case.runs_on(device_class) for case in ranked):
            raise ProblemError(f"ranked: no case runs on the {device_class} device class")


# AMD targets a problem's HIP sources may require, oldest first: gfx940 and gfx942 (MI300X) are CDNA3,
# with the fp8 and xf32 MFMA instructions gfx90a lacks. Debian's hipcc knows gfx940 at newest; ROCm 6's
# hip_bf16.h and hip_fp8.h it lacks are the judge's stand-ins (agent/include/hip-compat).
HIP_ARCHS = ("gfx90a", "gfx940", "gfx942")


def parse_requires(raw: Any) -> dict[str, str]:
    """`requires: {hip_arch: gfx942}`: the oldest target the problem's HIP solutions compile for
    (a hipcc that knows no such target compiles them for nothing older)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or set(raw) - {"hip_arch"}:
        raise ProblemError("requires: must be a mapping with hip_arch")
    if raw.get("hip_arch") not in HIP_ARCHS:
        raise ProblemError(f"requires.hip_arch: must be one of {', '.join(HIP_ARCHS)}")
    return {"hip_arch": raw["hip_arch"]}


def parse_flops_type(raw: Any) -> str:
    """`flops_type: bf16`: what the problem's `flops` run in on the device (its matrix cores for a
    GEMM on bf16 inputs), which picks the compute peak of its speed of light; fp32 when absent."""
    if raw is None:
        return DEFAULT_FLOPS_TYPE
    if raw not in FLOPS_TYPES:
        raise ProblemError(f"flops_type: {raw!r} is not one of {', '.join(FLOPS_TYPES)}")
    return str(raw)


def parse_baselines(raw: Any) -> dict[str, str]:
    """The reference solutions' sources by language (timed interleaved with a ranked submission)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not all(
            lang in LANGUAGES and isinstance(text, str) and text.strip() for lang, text in raw.items()):
        raise ProblemError(f"problem.baselines: must map some of {', '.join(LANGUAGES)} to source text")
    return dict(raw)


def parse_tolerance(raw: Any) -> Tolerance:
    if not isinstance(raw, Mapping):
        raise ProblemError("check: must be {exact: true}, {rtol: .., atol: ..} or {ulps: .., atol: ..}")
    if raw.get("exact"):
        return Tolerance(exact=True)
    unknown = set(raw) - {"rtol", "atol", "ulps", "exact", "bias"}
    if unknown:
        raise ProblemError(f"check: unknown key(s) {', '.join(sorted(unknown))}")
    if "rtol" not in raw and "ulps" not in raw:
        raise ProblemError("check: needs numeric rtol and atol, ulps (and atol), or exact: true")
    try:
        rtol, atol, ulps, bias = (float(raw.get(key, 0.0)) for key in ("rtol", "atol", "ulps", "bias"))
        if "rtol" in raw:
            float(raw["atol"])  # an rtol comes with its atol
    except (KeyError, TypeError, ValueError) as exc:
        raise ProblemError("check: needs numeric rtol and atol, ulps (and atol), or exact: true") from exc
    if not all(math.isfinite(value) for value in (rtol, atol, ulps, bias)):
        raise ProblemError("check: tolerances must be finite numbers")  # a NaN bound refuses every answer
    if rtol < 0 or atol < 0 or ulps < 0 or bias < 0:
        raise ProblemError("check: tolerances cannot be negative")
    if "bias" in raw and not ulps:
        raise ProblemError("check: bias (a mean error in ulps) needs ulps")
    return Tolerance(rtol=rtol, atol=atol, ulps=ulps, bias=bias)


def parse_forbidden(raw: Any) -> tuple[Forbidden, ...]:
    if not isinstance(raw, list):
        raise ProblemError("forbidden: must be a list")
    rules = []
    for i, item in enumerate(raw):
        where = f"forbidden[{i}]."
        if not isinstance(item, Mapping):
            raise ProblemError(f"forbidden[{i}]: must be a mapping")
        pattern = req(item, "pattern", str, where)
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ProblemError(f"{where}pattern: not a regular expression ({exc})") from exc
        languages = tuple(item.get("languages", LANGUAGES))
        if any(lang not in LANGUAGES for lang in languages):
            raise ProblemError(f"{where}languages: must be some of {', '.join(LANGUAGES)}")
        rules.append(Forbidden(pattern, req(item, "reason", str, where), languages))
    return tuple(rules)


def check_formula(expr: Any, where: str, allowed: set[str]) -> None:
    if isinstance(expr, bool) or not isinstance(expr, str | int | float):
        raise ProblemError(f"{where}: must be a number or a formula")
    try:
        unknown = names_in(expr) - allowed
    except ExprError as exc:
        raise ProblemError(f"{where}: {exc}") from exc
    if unknown:
        raise ProblemError(f"{where}: unknown name(s) {', '.join(sorted(unknown))} in {expr!r}")

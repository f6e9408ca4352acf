"""Problem bundles: load `problems/<slug>/`, validate every field, ship as JSON, run the reference.

A bundle is what the platform sends with every job: the parsed problem.yaml (`definition`), the
source of reference.py and a content hash. Validation names the bad field
(`signature[2].type: unknown type 'flaot'`) so a problem author can fix it at once.
"""

from __future__ import annotations

import hashlib
import json
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agent.expr import ExprError, evaluate, names_in

LANGUAGES = ("cpp", "hip", "cuda")
DEVICE_CLASSES = ("host", "gpu")
DIFFICULTIES = ("easy", "medium", "hard")
SOURCE_SUFFIX = {"cpp": ".cpp", "hip": ".hip", "cuda": ".cu"}
# The device class a language's kernels run on.
LANGUAGE_DEVICE_CLASS = {"cpp": "host", "hip": "gpu", "cuda": "gpu"}

# C type -> (NumPy dtype, spellings accepted in a user's declaration).
C_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "float": ("float32", ("float",)),
    "double": ("float64", ("double",)),
    "int": ("int32", ("int", "int32_t", "signed int", "signed")),
    "unsigned int": ("uint32", ("unsigned int", "uint32_t", "unsigned")),
    "int64_t": ("int64", ("int64_t", "long long", "long", "long int", "long long int")),
    "size_t": ("uint64", ("size_t", "uint64_t", "unsigned long", "unsigned long long")),
    "uint8_t": ("uint8", ("uint8_t", "unsigned char")),
}
_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ProblemError(ValueError):
    """A problem bundle is invalid; the message starts with the path of the bad field."""


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str
    pointer: bool = False
    const: bool = False
    output: bool = False
    shape: tuple[str | int, ...] = ()

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(C_TYPES[self.ctype][0])

    @property
    def is_input_buffer(self) -> bool:
        return self.pointer and not self.output

    def declaration(self) -> str:
        if not self.pointer:
            return f"{self.ctype} {self.name}"
        return f"{'const ' if self.const else ''}{self.ctype}* {self.name}"

    def shape_for(self, params: Mapping[str, int | float]) -> tuple[int, ...]:
        return tuple(int(evaluate(d, params)) for d in self.shape)


@dataclass(frozen=True)
class Case:
    name: str
    devices: tuple[str, ...]
    params: dict[str, int | float]  # sizes and scalar arguments, e.g. {"n": 4096, "alpha": 0.01}

    def runs_on(self, device_class: str) -> bool:
        return device_class in self.devices


@dataclass(frozen=True)
class Tolerance:
    exact: bool = False
    rtol: float = 0.0
    atol: float = 0.0


@dataclass(frozen=True)
class Forbidden:
    pattern: str
    reason: str
    languages: tuple[str, ...] = LANGUAGES

    def search(self, source: str) -> re.Match[str] | None:
        return re.search(self.pattern, source, flags=re.MULTILINE)


@dataclass
class Problem:
    slug: str
    title: str
    difficulty: str
    tags: tuple[str, ...]
    signature: tuple[Param, ...]
    tests: tuple[Case, ...]
    benchmarks: tuple[Case, ...]
    tolerance: Tolerance
    flops: str | int
    bytes: str | int
    forbidden: tuple[Forbidden, ...]
    definition: dict[str, Any]
    reference_source: str
    statement: str = ""
    templates: dict[str, str] = field(default_factory=dict)
    _module: types.ModuleType | None = field(default=None, repr=False)

    # ---- derived -----------------------------------------------------------------------------
    @property
    def content_hash(self) -> str:
        return bundle_hash(self.definition, self.reference_source)

    @property
    def inputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.signature if p.is_input_buffer)

    @property
    def outputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.signature if p.output)

    def c_signature(self) -> str:
        return f'extern "C" void solution({", ".join(p.declaration() for p in self.signature)})'

    def cases(self, kind: str, device_class: str) -> list[Case]:
        pool = self.tests if kind == "test" else self.benchmarks
        return [c for c in pool if c.runs_on(device_class)]

    def flop_count(self, case: Case) -> float:
        return float(evaluate(self.flops, case.params))

    def byte_count(self, case: Case) -> float:
        return float(evaluate(self.bytes, case.params))

    # ---- the reference -----------------------------------------------------------------------
    @property
    def module(self) -> types.ModuleType:
        if self._module is None:
            module = types.ModuleType(f"hipjudge_reference_{self.slug.replace('-', '_')}")
            exec(compile(self.reference_source, f"problems/{self.slug}/reference.py", "exec"),  # noqa: S102
                 module.__dict__)
            self._module = module
        return self._module

    def generate(self, case: Case, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Input buffers for one case, exactly of the declared dtype and shape."""
        produced = self.module.generate(dict(case.params), rng)
        buffers: dict[str, np.ndarray] = {}
        for p in self.inputs:
            if p.name not in produced:
                raise ProblemError(f"reference.generate: no buffer for input {p.name!r}")
            arr = np.ascontiguousarray(produced[p.name], dtype=p.dtype)
            expected = p.shape_for(case.params)
            if arr.shape != expected:
                raise ProblemError(f"reference.generate: {p.name} has shape {arr.shape}, want {expected}")
            buffers[p.name] = arr
        return buffers

    def expected(self, case: Case, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        # The reference gets copies: a buggy reference must not alter what we compare against.
        produced = self.module.reference({k: v.copy() for k, v in inputs.items()}, dict(case.params))
        return {p.name: np.asarray(produced[p.name]).astype(p.dtype, copy=False).reshape(
            p.shape_for(case.params)) for p in self.outputs}

    def scalar_args(self, case: Case) -> dict[str, int | float]:
        return {p.name: case.params[p.name] for p in self.signature if not p.pointer}

    # ---- bundle (JSON) -------------------------------------------------------------------------
    def to_bundle(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "definition": self.definition,
            "reference_py": self.reference_source,
            "hash": self.content_hash,
        }


def bundle_hash(definition: Mapping[str, Any], reference_source: str) -> str:
    blob = json.dumps(definition, sort_keys=True, separators=(",", ":")) + "\0" + reference_source
    return hashlib.sha256(blob.encode()).hexdigest()


def problem_from_bundle(bundle: Any) -> Problem:
    if not isinstance(bundle, Mapping):
        raise ProblemError("problem: must be an object")
    definition, reference = bundle.get("definition"), bundle.get("reference_py")
    if not isinstance(reference, str) or not reference.strip():
        raise ProblemError("problem.reference_py: missing")
    problem = parse_definition(definition, reference)
    if "hash" in bundle and bundle["hash"] != problem.content_hash:
        raise ProblemError("problem.hash: does not match the definition and reference")
    return problem


def load_problem_dir(path: Path) -> Problem:
    """Load and fully validate `problems/<slug>/` (including a dry run of the reference)."""
    path = Path(path)
    try:
        definition = yaml.safe_load((path / "problem.yaml").read_text())
        reference = (path / "reference.py").read_text()
    except FileNotFoundError as exc:
        raise ProblemError(f"{path.name}: missing {Path(exc.filename).name}") from exc
    except yaml.YAMLError as exc:
        raise ProblemError(f"{path.name}/problem.yaml: not valid YAML ({exc})") from exc
    problem = parse_definition(definition, reference)
    if problem.slug != path.name:
        raise ProblemError(f"slug: {problem.slug!r} does not match the folder name {path.name!r}")
    statement = path / "statement.md"
    if not statement.is_file():
        raise ProblemError(f"{path.name}: missing statement.md")
    problem.statement = statement.read_text()
    for language in LANGUAGES:
        template = path / "templates" / f"{language}{SOURCE_SUFFIX[language]}"
        if not template.is_file():
            raise ProblemError(f"{path.name}: missing templates/{template.name}")
        problem.templates[language] = template.read_text()
    _dry_run_reference(problem)
    return problem


def load_catalogue(root: Path) -> list[Problem]:
    return [load_problem_dir(d) for d in sorted(Path(root).iterdir()) if (d / "problem.yaml").is_file()]


def parse_definition(definition: Any, reference_source: str) -> Problem:
    if not isinstance(definition, Mapping):
        raise ProblemError("problem.yaml: must be a mapping")
    d = definition
    slug = _req(d, "slug", str)
    if not _SLUG_RE.match(slug):
        raise ProblemError(f"slug: {slug!r} is not a lowercase slug")
    difficulty = _req(d, "difficulty", str)
    if difficulty not in DIFFICULTIES:
        raise ProblemError(f"difficulty: {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
    tags = d.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ProblemError("tags: must be a list of strings")
    signature = _parse_signature(d.get("signature"))
    sizes = {p.name for p in signature if not p.pointer}
    tests = _parse_cases(d.get("tests"), "tests", signature)
    benchmarks = _parse_cases(d.get("benchmarks"), "benchmarks", signature)
    for key in ("flops", "bytes"):
        _check_formula(d.get(key), key, sizes | {k for c in tests for k in c.params})
    problem = Problem(
        slug=slug,
        title=_req(d, "title", str),
        difficulty=difficulty,
        tags=tuple(tags),
        signature=signature,
        tests=tests,
        benchmarks=benchmarks,
        tolerance=_parse_tolerance(d.get("check")),
        flops=d["flops"],
        bytes=d["bytes"],
        forbidden=_parse_forbidden(d.get("forbidden", [])),
        definition=json.loads(json.dumps(definition)),
        reference_source=reference_source,
    )
    for kind in ("host", "gpu"):
        if not problem.cases("test", kind) and not problem.cases("bench", kind):
            raise ProblemError(f"tests: no case runs on the {kind} device class")
    return problem


def _req(d: Mapping[str, Any], key: str, kind: type, where: str = "") -> Any:
    if key not in d:
        raise ProblemError(f"{where}{key}: missing")
    value = d[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ProblemError(f"{where}{key}: must be a {kind.__name__}")
    return value


def _parse_signature(raw: Any) -> tuple[Param, ...]:
    if not isinstance(raw, list) or not raw:
        raise ProblemError("signature: must be a non-empty list of parameters")
    params: list[Param] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"signature[{i}]."
        if not isinstance(item, Mapping):
            raise ProblemError(f"signature[{i}]: must be a mapping")
        name = _req(item, "name", str, where)
        if not _NAME_RE.match(name) or name in seen:
            raise ProblemError(f"{where}name: {name!r} is not a unique C identifier")
        seen.add(name)
        ctype = _req(item, "type", str, where)
        if ctype not in C_TYPES:
            raise ProblemError(f"{where}type: unknown type {ctype!r} (known: {', '.join(C_TYPES)})")
        pointer, const, output = (bool(item.get(k, False)) for k in ("pointer", "const", "output"))
        shape = item.get("shape", [])
        if pointer:
            if const == output:
                raise ProblemError(f"{where}: a pointer is either const (an input) or output: true")
            if not isinstance(shape, list) or not shape:
                raise ProblemError(f"{where}shape: a pointer needs a shape, e.g. [n]")
        elif const or output or shape:
            raise ProblemError(f"{where}: const/output/shape only apply to pointers")
        params.append(Param(name, ctype, pointer, const, output, tuple(shape)))
    if not any(p.output for p in params):
        raise ProblemError("signature: no output buffer")
    scalars = {p.name for p in params if not p.pointer}
    for i, p in enumerate(params):
        for dim in p.shape:
            _check_formula(dim, f"signature[{i}].shape", scalars)
    return tuple(params)


def _parse_cases(raw: Any, key: str, signature: tuple[Param, ...]) -> tuple[Case, ...]:
    if not isinstance(raw, list) or not raw:
        raise ProblemError(f"{key}: must be a non-empty list of cases")
    scalars = [p.name for p in signature if not p.pointer]
    cases: list[Case] = []
    for i, item in enumerate(raw):
        where = f"{key}[{i}]."
        if not isinstance(item, Mapping):
            raise ProblemError(f"{key}[{i}]: must be a mapping")
        name = _req(item, "name", str, where)
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
        cases.append(Case(name, tuple(devices), dict(params)))
    return tuple(cases)


def _parse_tolerance(raw: Any) -> Tolerance:
    if not isinstance(raw, Mapping):
        raise ProblemError("check: must be {exact: true} or {rtol: .., atol: ..}")
    if raw.get("exact"):
        return Tolerance(exact=True)
    try:
        rtol, atol = float(raw["rtol"]), float(raw["atol"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ProblemError("check: needs numeric rtol and atol, or exact: true") from exc
    if rtol < 0 or atol < 0:
        raise ProblemError("check: tolerances cannot be negative")
    return Tolerance(rtol=rtol, atol=atol)


def _parse_forbidden(raw: Any) -> tuple[Forbidden, ...]:
    if not isinstance(raw, list):
        raise ProblemError("forbidden: must be a list")
    rules = []
    for i, item in enumerate(raw):
        where = f"forbidden[{i}]."
        if not isinstance(item, Mapping):
            raise ProblemError(f"forbidden[{i}]: must be a mapping")
        pattern = _req(item, "pattern", str, where)
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ProblemError(f"{where}pattern: not a regular expression ({exc})") from exc
        languages = tuple(item.get("languages", LANGUAGES))
        if any(lang not in LANGUAGES for lang in languages):
            raise ProblemError(f"{where}languages: must be some of {', '.join(LANGUAGES)}")
        rules.append(Forbidden(pattern, _req(item, "reason", str, where), languages))
    return tuple(rules)


def _check_formula(expr: Any, where: str, allowed: set[str]) -> None:
    if isinstance(expr, bool) or not isinstance(expr, str | int | float):
        raise ProblemError(f"{where}: must be a number or a formula")
    try:
        unknown = names_in(expr) - allowed
    except ExprError as exc:
        raise ProblemError(f"{where}: {exc}") from exc
    if unknown:
        raise ProblemError(f"{where}: unknown name(s) {', '.join(sorted(unknown))} in {expr!r}")


def _dry_run_reference(problem: Problem) -> None:
    """Generate and solve the smallest test case so a broken reference fails at load time."""
    for fn in ("generate", "reference"):
        if not callable(getattr(problem.module, fn, None)):
            raise ProblemError(f"{problem.slug}/reference.py: no function {fn}()")
    case = problem.tests[0]
    inputs = problem.generate(case, np.random.default_rng(0))
    problem.expected(case, inputs)

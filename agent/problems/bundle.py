"""Problem bundles: load `problems/<slug>/`, validate every field, ship as JSON, run the reference.

A bundle is what the platform sends with every job: the parsed problem.yaml (`definition`), the
source of reference.py and a content hash. Validation names the bad field
(`signature[2].type: unknown type 'flaot'`) so a problem author can fix it at once.
"""

from __future__ import annotations

import hashlib
import json
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agent.problems.dtypes import element_type, listed_name
from agent.problems.expr import evaluate
from agent.problems.schema import (  # noqa: F401 - re-exported: callers import the schema from here
    C_TYPES,
    DEVICE_CLASSES,
    DIFFICULTIES,
    LANGUAGE_DEVICE_CLASS,
    LANGUAGES,
    OPTIONAL_LANGUAGES,
    SLUG_RE,
    SOURCE_SUFFIX,
    TAG_RE,
    Case,
    Forbidden,
    Param,
    ProblemError,
    Tolerance,
    check_formula,
    check_ranked,
    parse_baselines,
    parse_cases,
    parse_flops_type,
    parse_forbidden,
    parse_requires,
    parse_signature,
    parse_title,
    parse_tolerance,
    req,
)


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
    # Cases of the ranked pass (mode leaderboard) and the reference solutions it times against.
    ranked: tuple[Case, ...] = ()
    baselines: dict[str, str] = field(default_factory=dict)
    requires: dict[str, str] = field(default_factory=dict)  # e.g. {"hip_arch": "gfx942"}
    flops_type: str = "fp32"  # what `flops` run in (agent.problems.roofline.FLOPS_TYPES): the compute peak to use
    _module: types.ModuleType | None = field(default=None, repr=False)

    # ---- derived -----------------------------------------------------------------------------
    @property
    def content_hash(self) -> str:
        return bundle_hash(self.definition, self.reference_source, self.baselines)

    @property
    def inputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.signature if p.is_input_buffer)

    @property
    def kept_inputs(self) -> frozenset[str]:
        """Inputs the benchmark leaves as generated between timed runs (`mutate: false`)."""
        return frozenset(p.name for p in self.inputs if not p.mutate)

    @property
    def outputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.signature if p.output)

    @property
    def data_types(self) -> tuple[str, ...]:
        """The element types of its buffers, in signature order, each once (agent.problems.dtypes.listed_name):
        what the problem lists are filtered by. Scalars (sizes, alpha) say nothing of the problem."""
        return tuple(dict.fromkeys(listed_name(element_type(p.ctype)) for p in self.signature if p.pointer))

    def c_signature(self, language: str = "cpp") -> str:
        """The declaration a `language` solution writes (each type spelled as that language does)."""
        if language == "triton":
            return f"def solution({', '.join(p.name for p in self.signature)})"
        return f'extern "C" void solution({", ".join(p.declaration(language) for p in self.signature)})'

    def c_signatures(self) -> dict[str, str]:
        return {language: self.c_signature(language) for language in LANGUAGES}

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages it takes: all but an optional one without its template (loaded from a
        folder; a bundle received as JSON has no templates and takes what it is sent)."""
        if not self.templates:
            return LANGUAGES
        return tuple(lang for lang in LANGUAGES if lang in self.templates or lang not in OPTIONAL_LANGUAGES)

    def parameters(self) -> list[dict[str, Any]]:
        """Each parameter with its type as problem.yaml names it and as each language spells it: what
        the statement, the API, the CLI and the web page show."""
        return [{"name": p.name, "type": p.ctype, "c_types": {lang: p.c_type(lang) for lang in LANGUAGES},
                 "pointer": p.pointer, "const": p.const, "output": p.output, "shape": [str(d) for d in p.shape]}
                for p in self.signature]

    def cases(self, kind: str, device_class: str) -> list[Case]:
        pool = {"test": self.tests, "ranked": self.ranked}.get(kind, self.benchmarks)
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
            "baselines": dict(self.baselines),
        }


def bundle_hash(definition: Mapping[str, Any], reference_source: str,
                baselines: Mapping[str, str] | None = None) -> str:
    """The version of a problem: its definition, reference and (when it has them) the baseline
    sources a ranked speedup is measured against."""
    blob = json.dumps(definition, sort_keys=True, separators=(",", ":")) + "\0" + reference_source
    if baselines:
        blob += "\0" + json.dumps(dict(baselines), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def problem_from_bundle(bundle: Any) -> Problem:
    if not isinstance(bundle, Mapping):
        raise ProblemError("problem: must be an object")
    definition, reference = bundle.get("definition"), bundle.get("reference_py")
    if not isinstance(reference, str) or not reference.strip():
        raise ProblemError("problem.reference_py: missing")
    problem = parse_definition(definition, reference)
    problem.baselines = parse_baselines(bundle.get("baselines"))
    if "hash" in bundle and bundle["hash"] != problem.content_hash:
        raise ProblemError("problem.hash: does not match the definition and reference")
    return problem


def _read(folder: Path, name: str) -> str:
    """A bundle's file as text; a missing or unreadable file or bad UTF-8 is a ProblemError naming it."""
    try:
        return (folder / name).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ProblemError(f"{folder.name}: missing {name}") from exc
    except UnicodeDecodeError as exc:
        raise ProblemError(f"{folder.name}/{name}: not UTF-8 (byte {exc.start}: {exc.reason})") from exc
    except OSError as exc:
        raise ProblemError(f"{folder.name}/{name}: cannot be read ({exc.strerror or exc})") from exc


def load_problem_dir(path: Path) -> Problem:
    """Load and fully validate `problems/<slug>/` (including a dry run of the reference). Whatever is
    wrong with it is a ProblemError naming the file (and field or line), never another exception."""
    path = Path(path)
    text = _read(path, "problem.yaml")
    reference = _read(path, "reference.py")
    try:
        definition = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ProblemError(f"{path.name}/problem.yaml: not valid YAML ({exc})") from exc
    problem = parse_definition(definition, reference)
    if problem.slug != path.name:
        raise ProblemError(f"slug: {problem.slug!r} does not match the folder name {path.name!r}")
    if not (path / "statement.md").is_file():
        raise ProblemError(f"{path.name}: missing statement.md")
    problem.statement = _read(path, "statement.md")
    for language in LANGUAGES:
        template = f"templates/{language}{SOURCE_SUFFIX[language]}"
        if not (path / template).is_file() and language in OPTIONAL_LANGUAGES:
            continue
        if not (path / template).is_file():
            raise ProblemError(f"{path.name}: missing {template}")
        problem.templates[language] = _read(path, template)
        solution = f"solutions/{language}{SOURCE_SUFFIX[language]}"
        if (path / solution).is_file():
            problem.baselines[language] = _read(path, solution)
    _dry_run_reference(problem)
    return problem


def load_catalogue(root: Path) -> list[Problem]:
    return [load_problem_dir(d) for d in sorted(Path(root).iterdir()) if (d / "problem.yaml").is_file()]


def parse_definition(definition: Any, reference_source: str) -> Problem:
    if not isinstance(definition, Mapping):
        raise ProblemError("problem.yaml: must be a mapping")
    d = definition
    slug = req(d, "slug", str)
    if not SLUG_RE.match(slug):
        raise ProblemError(f"slug: {slug!r} is not a lowercase slug")
    difficulty = req(d, "difficulty", str)
    if difficulty not in DIFFICULTIES:
        raise ProblemError(f"difficulty: {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
    tags = d.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ProblemError("tags: must be a list of strings")
    for i, tag in enumerate(tags):
        if not TAG_RE.match(tag):
            raise ProblemError(f"tags[{i}]: {tag!r} is not a tag (lowercase letters, digits and dashes, up to 40)")
    signature = parse_signature(d.get("signature"))
    sizes = {p.name for p in signature if not p.pointer}
    tests = parse_cases(d.get("tests"), "tests", signature)
    benchmarks = parse_cases(d.get("benchmarks"), "benchmarks", signature)
    ranked = parse_cases(d["ranked"], "ranked", signature) if "ranked" in d else ()
    if ranked:
        check_ranked(ranked, (*tests, *benchmarks), signature)
    for key in ("flops", "bytes"):
        check_formula(d.get(key), key, sizes | {k for c in tests for k in c.params})
    problem = Problem(
        slug=slug,
        title=parse_title(req(d, "title", str)),
        difficulty=difficulty,
        tags=tuple(tags),
        signature=signature,
        tests=tests,
        benchmarks=benchmarks,
        ranked=ranked,
        tolerance=parse_tolerance(d.get("check")),
        flops=d["flops"],
        bytes=d["bytes"],
        forbidden=parse_forbidden(d.get("forbidden", [])),
        requires=parse_requires(d.get("requires")),
        flops_type=parse_flops_type(d.get("flops_type")),
        definition=json.loads(json.dumps(definition)),
        reference_source=reference_source,
    )
    for kind in ("host", "gpu"):
        if not problem.cases("test", kind) and not problem.cases("bench", kind):
            raise ProblemError(f"tests: no case runs on the {kind} device class")
    return problem


def _dry_run_reference(problem: Problem) -> None:
    """Generate and solve the smallest test case so a broken reference fails at load time: any
    exception of the author's code (a syntax error, a failing import or call) is a ProblemError."""
    where = f"{problem.slug}/reference.py"
    try:
        module = problem.module
    except SyntaxError as exc:
        raise ProblemError(f"{where}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except Exception as exc:  # noqa: BLE001 - the author's module body: whatever it raises is reported
        raise ProblemError(f"{where}: loading it raised {type(exc).__name__}: {exc}") from exc
    for fn in ("generate", "reference"):
        if not callable(getattr(module, fn, None)):
            raise ProblemError(f"{where}: no function {fn}()")
    case = problem.tests[0]
    try:
        inputs = problem.generate(case, np.random.default_rng(0))
        problem.expected(case, inputs)
    except ProblemError:
        raise
    except Exception as exc:  # noqa: BLE001 - the author's generate() and reference(), on the first test case
        raise ProblemError(f"{where}: the first test case ({case.name}) raised {type(exc).__name__}: {exc}") from exc

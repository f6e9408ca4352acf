"""Sanity checks of the problem catalogue (`problems/<slug>/`), without the judge or the sandbox.

- every bundle loads (the loader validates it and dry-runs the reference) and has its templates and
  solutions, each declaring `extern "C" void solution(...)` exactly as the signature says;
- every `cpp` solution, built with g++ and called through ctypes, matches the reference on the host
  cases, and every `wrong.cpp` mismatches on at least one host test;
- every `hip` template compiles with Debian's hipcc for the newest AMD target it knows, and every
  `cuda` one with nvcc where it is installed (the solutions compile through the judge itself, in
  tests/agent/test_judge.py);
- the loader names the bad field when a bundle is broken.

The real judge path (compiler + sandbox + harness) is tested elsewhere; this only keeps the
catalogue itself honest.
"""

from __future__ import annotations

import copy
import ctypes
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from agent.compiler import HIP_ARCH_CANDIDATES, LOWP_INCLUDE_DIR, newest_hip_arch
from agent.problem_schema import HIP_ARCHS
from agent.problems import (
    LANGUAGES,
    SOURCE_SUFFIX,
    Case,
    Problem,
    ProblemError,
    load_catalogue,
    load_problem_dir,
    parse_definition,
    problem_from_bundle,
)
from agent.shared import poison_byte
from agent.verify import compare

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
SLUGS = sorted(d.name for d in PROBLEMS.iterdir() if (d / "problem.yaml").is_file())
REQUIRED = {"vector-add", "leaky-relu", "softmax", "sum-reduction", "matrix-transpose", "prefix-sum",
            "matmul-fp32", "histogram"}
SOLUTION_FILES = {"cpp": "cpp.cpp", "hip": "hip.hip", "cuda": "cuda.cu", "wrong": "wrong.cpp"}
CUDA_ARCH = "sm_80"  # no GPU here, so no -arch=native
JOBS = 2  # compilers run at most two at a time (small shared CI machines)
COMPILE_TIMEOUT = 300

C_TYPES = {"float": ctypes.c_float, "double": ctypes.c_double, "int": ctypes.c_int32,
           "unsigned int": ctypes.c_uint32, "int64_t": ctypes.c_int64, "size_t": ctypes.c_uint64,
           "uint8_t": ctypes.c_uint8, "int8": ctypes.c_int8, "uint8": ctypes.c_uint8, "int32": ctypes.c_int32}
LOWP = ["-I", str(LOWP_INCLUDE_DIR)]  # <hipjudge/lowp.h>, as the judge gives cpp solutions


@cache
def get_problem(slug: str) -> Problem:
    return load_problem_dir(PROBLEMS / slug)


def solution_path(slug: str, which: str) -> Path:
    return PROBLEMS / slug / "solutions" / SOLUTION_FILES[which]


def template_path(slug: str, language: str) -> Path:
    return PROBLEMS / slug / "templates" / f"{language}{SOURCE_SUFFIX[language]}"


def compile_all(jobs: Iterable[tuple[Any, list[str]]], env: dict[str, str] | None = None) -> dict[Any, str | None]:
    """Run compiler command lines, two at a time; maps each key to None (success) or the error."""

    def run(cmd: list[str]) -> str | None:
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=COMPILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"timed out after {COMPILE_TIMEOUT} s: {' '.join(cmd)}"
        if done.returncode != 0:
            return f"exit {done.returncode}: {' '.join(cmd)}\n{(done.stdout + done.stderr)[-3000:]}"
        return None

    jobs = list(jobs)
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        results = list(pool.map(run, [cmd for _, cmd in jobs]))
    return {key: result for (key, _), result in zip(jobs, results, strict=True)}


# ---- (a) the catalogue ---------------------------------------------------------------------------

def test_catalogue_loads_with_templates_and_solutions() -> None:
    problems = load_catalogue(PROBLEMS)
    slugs = {p.slug for p in problems}
    assert len(problems) >= 8
    assert REQUIRED <= slugs, f"missing problems: {sorted(REQUIRED - slugs)}"
    for p in problems:
        assert set(p.templates) == set(LANGUAGES), p.slug
        assert all(text.strip() for text in p.templates.values()), p.slug
        assert p.statement.strip(), p.slug
        for which in SOLUTION_FILES:
            assert solution_path(p.slug, which).is_file(), f"{p.slug}: no solutions/{SOLUTION_FILES[which]}"
        assert p.cases("test", "host"), p.slug
        assert p.cases("test", "gpu"), p.slug
        assert p.cases("bench", "host"), p.slug
        assert p.cases("bench", "gpu"), p.slug
        # The bundle the platform ships survives a JSON round trip with the same hash.
        assert problem_from_bundle(p.to_bundle()).content_hash == p.content_hash


def declared_params(source: str) -> list[str]:
    found = re.findall(r'extern\s+"C"\s+void\s+solution\s*\(([^)]*)\)', source)
    assert len(found) == 1, f"expected one extern \"C\" solution, found {len(found)}"
    params = [" ".join(part.split()) for part in found[0].split(",")]
    return [re.sub(r"\s*\*\s*", "* ", part) for part in params]


@pytest.mark.parametrize("slug", SLUGS)
def test_sources_declare_the_signature_and_pass_the_forbidden_rules(slug: str) -> None:
    problem = get_problem(slug)
    sources = {f"templates/{template_path(slug, lang).name}": (lang, template_path(slug, lang))
               for lang in LANGUAGES}
    for which, name in SOLUTION_FILES.items():
        sources[f"solutions/{name}"] = ("cpp" if which == "wrong" else which, solution_path(slug, which))
    for label, (language, path) in sources.items():
        text = path.read_text()
        assert declared_params(text) == [p.declaration(language) for p in problem.signature], f"{slug}/{label}"
        for rule in problem.forbidden:
            if language in rule.languages:
                assert rule.search(text) is None, f"{slug}/{label} trips forbidden {rule.pattern!r}"


# ---- (b) cpp solutions against the reference -----------------------------------------------------

@pytest.fixture(scope="module")
def host_libs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    out = tmp_path_factory.mktemp("host-libs")
    jobs = []
    for slug in SLUGS:
        for which in ("cpp", "wrong"):
            lib = out / f"{slug}-{which}.so"
            jobs.append(((slug, which), ["g++", "-O3", "-std=c++17", "-fPIC", "-shared", *LOWP,
                                         str(solution_path(slug, which)), "-o", str(lib)]))
    errors = compile_all(jobs)
    failed = {key: err for key, err in errors.items() if err}
    assert not failed, failed
    return {key: out / f"{key[0]}-{key[1]}.so" for key, _ in jobs}


def call_solution(lib: Path, problem: Problem, case: Case,
                  inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Call `solution` on host buffers; outputs start poisoned (NaN, or 0xA5 bytes for integers)."""
    fn = ctypes.CDLL(str(lib)).solution
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p if p.pointer else C_TYPES[p.ctype] for p in problem.signature]
    outputs: dict[str, np.ndarray] = {}
    args: list[Any] = []
    for p in problem.signature:
        if not p.pointer:
            args.append(case.params[p.name])
        elif p.output:
            buf = np.empty(p.shape_for(case.params), dtype=p.dtype)
            buf.view(np.uint8).fill(poison_byte(buf.dtype))
            outputs[p.name] = buf
            args.append(buf.ctypes.data)
        else:
            args.append(inputs[p.name].ctypes.data)
    fn(*args)
    return outputs


def first_mismatch(problem: Problem, got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str | None:
    """The judge's own comparison (agent.verify), type by type."""
    for name, w in want.items():
        g = got[name]
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        message = compare(name, g, w, problem.tolerance)
        if message:
            return message
    return None


def judge_on_host(lib: Path, problem: Problem, cases: list[Case]) -> dict[str, str | None]:
    """Case name -> None when the output matches the reference, else the first mismatch."""
    verdicts = {}
    for index, case in enumerate(cases):
        inputs = problem.generate(case, np.random.default_rng(20240 + index))
        before = {k: v.copy() for k, v in inputs.items()}
        got = call_solution(lib, problem, case, inputs)
        for name, arr in inputs.items():
            assert np.array_equal(arr, before[name]), f"{problem.slug} {case.name}: input {name} modified"
        verdicts[case.name] = first_mismatch(problem, got, problem.expected(case, inputs))
    return verdicts


@pytest.mark.parametrize("slug", SLUGS)
def test_cpp_solution_matches_the_reference(slug: str, host_libs: dict[tuple[str, str], Path]) -> None:
    problem = get_problem(slug)
    cases = problem.cases("test", "host") + problem.cases("bench", "host")
    verdicts = judge_on_host(host_libs[slug, "cpp"], problem, cases)
    assert all(v is None for v in verdicts.values()), {k: v for k, v in verdicts.items() if v}


@pytest.mark.parametrize("slug", SLUGS)
def test_wrong_solution_mismatches(slug: str, host_libs: dict[tuple[str, str], Path]) -> None:
    problem = get_problem(slug)
    verdicts = judge_on_host(host_libs[slug, "wrong"], problem, problem.cases("test", "host"))
    assert any(v is not None for v in verdicts.values()), f"{slug}: wrong.cpp passes every host test"


# ---- (c) hip and (d) cuda / cpp templates compile --------------------------------------------------

def hip_env(scratch: Path) -> dict[str, str]:
    # nvcc is installed too: without HIP_PLATFORM=amd, hipcc would hand the source to nvcc. hipcc also
    # leaves scratch directories in TMPDIR: point it at the test's own temporary directory.
    return dict(os.environ, HIP_PLATFORM="amd", TMPDIR=str(scratch))


def hipcc_cmd(arch: str, src: Path, out: Path) -> list[str]:
    return ["hipcc", "-O3", "-std=c++17", "-fPIC", "-shared", f"--offload-arch={arch}", str(src), "-o", str(out)]


@pytest.fixture(scope="module")
def hip_arch(shared_agent_builds: Path) -> str:
    """The target the agent compiles HIP for without a GPU: its probe, remembered in the run's
    shared build folder like every agent's."""
    if shutil.which("hipcc") is None:
        pytest.skip("hipcc is not installed (apt-get install hipcc): HIP sources not compiled")
    arch = newest_hip_arch(shared_agent_builds)
    if arch is None:
        pytest.skip(f"this hipcc accepts none of {', '.join(HIP_ARCH_CANDIDATES)}")
    return arch


def gpu_sources(language: str, hip_arch: str | None = None) -> dict[tuple[str, str], Path]:
    """(slug, "template" or "solution") -> every problem's starter and its own solution in `language`;
    for HIP only the problems whose `requires.hip_arch` this hipcc knows."""
    sources = {}
    for slug in SLUGS:
        needed = get_problem(slug).requires.get("hip_arch")
        if language == "hip" and needed and hip_arch and HIP_ARCHS.index(needed) > HIP_ARCHS.index(hip_arch):
            continue
        sources[(slug, "template")] = template_path(slug, language)
        sources[(slug, "solution")] = solution_path(slug, language)
    return sources


def bundled(language: str, sources: dict[tuple[str, str], Path], out: Path) -> Path:
    """All the sources in one translation unit, each in a namespace of its own with its `solution`
    renamed (extern "C" names share one namespace), the headers they include first: the runtime's
    headers, most of a compile's time, are then parsed once instead of once per source."""
    headers = {"hip": ["<hip/hip_runtime.h>"], "cuda": ["<cuda_runtime.h>"]}[language]
    for path in sources.values():
        headers += [line.split(None, 1)[1].strip() for line in path.read_text().splitlines()
                    if line.startswith("#include <")]
    lines = [f"#include {header}" for header in dict.fromkeys(headers)]
    for index, path in enumerate(sources.values()):
        lines += [f"namespace source_{index} {{", f"#define solution solution_{index}", f'#include "{path}"',
                  "#undef solution", "}"]
    path = out / f"catalogue{SOURCE_SUFFIX[language]}"
    path.write_text("\n".join(lines) + "\n")
    return path


def compile_sources(language: str, command: Callable[[Path, Path], list[str]], out: Path,
                    env: dict[str, str] | None = None,
                    hip_arch: str | None = None) -> dict[tuple[str, str], str | None]:
    """(slug, kind) -> None when the template or solution compiles, else the error: all of them at
    once, and only when that fails each alone, to name the one that broke."""
    sources = gpu_sources(language, hip_arch)
    together = compile_all([("all", command(bundled(language, sources, out), out / "catalogue.so"))], env=env)
    if together["all"] is None:
        return dict.fromkeys(sources)
    return compile_all([(key, command(path, out / f"{key[0]}-{key[1]}.so")) for key, path in sources.items()],
                       env=env)


@pytest.fixture(scope="module")
def hip_builds(hip_arch: str, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str | None]:
    out = tmp_path_factory.mktemp("hip-builds")
    return compile_sources("hip", lambda src, lib: hipcc_cmd(hip_arch, src, lib), out, env=hip_env(out),
                           hip_arch=hip_arch)


@pytest.mark.parametrize("slug", SLUGS)
def test_hip_template_and_solution_compile(slug: str, hip_builds: dict[tuple[str, str], str | None]) -> None:
    # Through the judge itself, for one problem: tests/agent/test_judge.py.
    if (slug, "template") not in hip_builds:
        pytest.skip(f"{slug} needs hip_arch {get_problem(slug).requires['hip_arch']}, which this hipcc does not know")
    for kind in ("template", "solution"):
        assert hip_builds[(slug, kind)] is None, hip_builds[(slug, kind)]


@pytest.fixture(scope="module")
def cuda_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str | None]:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed: CUDA sources not compiled")
    return compile_sources("cuda", lambda src, lib: [
        "nvcc", "-O3", "-std=c++17", "-Xcompiler", "-fPIC", "-shared", f"-arch={CUDA_ARCH}", str(src), "-o", str(lib)],
        tmp_path_factory.mktemp("cuda-builds"))


@pytest.mark.parametrize("slug", SLUGS)
def test_cuda_template_and_solution_compile(slug: str, cuda_builds: dict[tuple[str, str], str | None]) -> None:
    # Through the judge itself, for one problem: tests/agent/test_judge.py.
    for kind in ("template", "solution"):
        assert cuda_builds[(slug, kind)] is None, cuda_builds[(slug, kind)]


def test_cpp_templates_compile(tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    jobs = [(slug, ["g++", "-O3", "-std=c++17", "-fPIC", "-shared", *LOWP, str(template_path(slug, "cpp")),
                    "-o", str(tmp_path / f"{slug}.so")]) for slug in SLUGS]
    errors = {slug: err for slug, err in compile_all(jobs).items() if err}
    assert not errors, errors


# ---- (e) the loader names the bad field --------------------------------------------------------------

EXEMPLAR = PROBLEMS / "vector-add"


def exemplar() -> tuple[dict[str, Any], str]:
    return yaml.safe_load((EXEMPLAR / "problem.yaml").read_text()), (EXEMPLAR / "reference.py").read_text()


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        d[path[-1]] = value
    return mutate


def _delete(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def mutate(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        del d[path[-1]]
    return mutate


BROKEN = [
    ("unknown type", _set(("signature", 1, "type"), "flaot"), "signature[1].type: unknown type 'flaot'"),
    ("pointer without shape", _delete(("signature", 0, "shape")), "signature[0].shape"),
    ("shape with unknown name", _set(("signature", 2, "shape"), ["q"]), "signature[2].shape"),
    ("duplicate parameter", _set(("signature", 1, "name"), "a"), "signature[1].name"),
    ("no tests", _delete(("tests",)), "tests:"),
    ("empty benchmarks", _set(("benchmarks",), []), "benchmarks:"),
    ("unknown device class", _set(("tests", 0, "devices"), ["tpu"]), "tests[0].devices"),
    ("missing size", _set(("benchmarks", 1, "params"), {}), "benchmarks[1].params: missing value for n"),
    ("fractional size", _set(("tests", 1, "params", "n"), 1.5), "tests[1].params: n must be an integer"),
    ("negative size", _set(("tests", 1, "params", "n"), -4), "tests[1].params: n must be an integer"),
    ("bad formula", _set(("flops",), "n *"), "flops:"),
    ("formula with unknown name", _set(("bytes",), "12 * q"), "bytes: unknown name(s) q"),
    ("no tolerance", _delete(("check",)), "check:"),
    ("negative tolerance", _set(("check",), {"rtol": -1, "atol": 0}), "check:"),
    ("bad difficulty", _set(("difficulty",), "extreme"), "difficulty:"),
    ("bad slug", _set(("slug",), "Vector Add"), "slug:"),
    ("bad forbidden regex", _set(("forbidden",), [{"pattern": "(", "reason": "x"}]), "forbidden[0].pattern"),
    ("forbidden without reason", _set(("forbidden",), [{"pattern": "x"}]), "forbidden[0].reason: missing"),
    ("mutate: false on an output", _set(("signature", 2, "mutate"), False), "signature[2].mutate"),
    ("every input kept as generated", lambda d: [p.update(mutate=False) for p in d["signature"][:2]],
     "signature: every input has mutate: false"),
]


@pytest.mark.parametrize(("mutate", "prefix"), [(m, p) for _, m, p in BROKEN], ids=[b[0] for b in BROKEN])
def test_loader_names_the_bad_field(mutate: Callable[[dict[str, Any]], None], prefix: str) -> None:
    definition, reference = exemplar()
    parse_definition(copy.deepcopy(definition), reference)  # the exemplar itself is fine
    mutate(definition)
    with pytest.raises(ProblemError) as info:
        parse_definition(definition, reference)
    assert str(info.value).startswith(prefix), str(info.value)


def _copy_exemplar(tmp_path: Path, name: str = "vector-add") -> Path:
    target = tmp_path / name
    shutil.copytree(EXEMPLAR, target)
    return target


def test_loader_reports_missing_files_and_broken_references(tmp_path: Path) -> None:
    good = _copy_exemplar(tmp_path / "ok")
    assert load_problem_dir(good).slug == "vector-add"

    cases = {
        "missing statement.md": lambda d: (d / "statement.md").unlink(),
        "missing templates/hip.hip": lambda d: (d / "templates" / "hip.hip").unlink(),
        "missing reference.py": lambda d: (d / "reference.py").unlink(),
        "reference.py: no function generate()": lambda d: (d / "reference.py").write_text(
            "def reference(inputs, params):\n    return {}\n"),
        "reference.generate: no buffer for input 'b'": lambda d: (d / "reference.py").write_text(
            "import numpy as np\n\ndef generate(params, rng):\n    return {'a': np.zeros(params['n'])}\n\n"
            "def reference(inputs, params):\n    return {'c': inputs['a']}\n"),
        "reference.generate: a has shape": lambda d: (d / "reference.py").write_text(
            "import numpy as np\n\ndef generate(params, rng):\n"
            "    return {'a': np.zeros(2), 'b': np.zeros(params['n'])}\n\n"
            "def reference(inputs, params):\n    return {'c': inputs['b']}\n"),
        "not valid YAML": lambda d: (d / "problem.yaml").write_text("slug: [unclosed\n"),
    }
    for index, (message, breakage) in enumerate(cases.items()):
        folder = _copy_exemplar(tmp_path / f"case{index}")
        breakage(folder)
        with pytest.raises(ProblemError, match=re.escape(message)):
            load_problem_dir(folder)

    renamed = _copy_exemplar(tmp_path, "vector-sum")
    with pytest.raises(ProblemError, match=r"^slug: 'vector-add' does not match the folder name 'vector-sum'"):
        load_problem_dir(renamed)


def test_tampered_bundle_is_refused() -> None:
    bundle = get_problem("vector-add").to_bundle()
    bundle["reference_py"] += "\n# changed\n"
    with pytest.raises(ProblemError, match=r"^problem\.hash"):
        problem_from_bundle(bundle)

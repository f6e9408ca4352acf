"""Sanity checks of the problem catalogue (`problems/<slug>/`), without the judge or the sandbox.

- every bundle loads (the loader validates it and dry-runs the reference) and has its templates and
  solutions, each declaring `extern "C" void solution(...)` exactly as the signature says;
- every `hip` template and solution compiles with Debian's hipcc for the newest AMD target it knows
  (gfx940: the bf16 and fp8 ones with the judge's stand-ins for ROCm 6's headers),
  and every `cuda` one with nvcc where it is installed, all of a language in one translation unit;
- the loader names the bad field when a bundle is broken.

Every problem's solutions through the real judge (the cpp ones on the host under several seeds, the
wrong one refused, the cpp starter compiled, the hip and cuda ones on the emulated device) are
`manage.py problem check`'s, in tests/submissions/test_problem_check.py.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.judging.compiler import HIP_ARCH_CANDIDATES, HIP_COMPAT_DIR, newest_hip_arch
from agent.problems.bundle import (
    LANGUAGES,
    OPTIONAL_LANGUAGES,
    SOURCE_SUFFIX,
    Problem,
    ProblemError,
    load_catalogue,
    load_problem_dir,
    parse_definition,
    problem_from_bundle,
)
from agent.problems.schema import HIP_ARCHS

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
SLUGS = sorted(d.name for d in PROBLEMS.iterdir() if (d / "problem.yaml").is_file())
REQUIRED = {"vector-add", "leaky-relu", "softmax", "sum-reduction", "matrix-transpose", "prefix-sum",
            "matmul-fp32", "histogram"}
SOLUTION_FILES = {"cpp": "cpp.cpp", "hip": "hip.hip", "cuda": "cuda.cu", "wrong": "wrong.cpp"}
CUDA_ARCH = "sm_80"  # no GPU here, so no -arch=native
JOBS = 2  # compilers run at most two at a time (small shared CI machines)
COMPILE_TIMEOUT = 300



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
        # Every language's template, an optional one's (triton) where the problem offers it.
        assert set(LANGUAGES) - set(OPTIONAL_LANGUAGES) <= set(p.templates) == set(p.languages), p.slug
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
               for lang in LANGUAGES if lang not in OPTIONAL_LANGUAGES}  # triton: test_triton_catalogue.py
    for which, name in SOLUTION_FILES.items():
        sources[f"solutions/{name}"] = ("cpp" if which == "wrong" else which, solution_path(slug, which))
    for label, (language, path) in sources.items():
        text = path.read_text()
        assert declared_params(text) == [p.declaration(language) for p in problem.signature], f"{slug}/{label}"
        for rule in problem.forbidden:
            if language in rule.languages:
                assert rule.search(text) is None, f"{slug}/{label} trips forbidden {rule.pattern!r}"


# ---- (c) hip and (d) cuda / cpp templates compile --------------------------------------------------

def hip_env(scratch: Path) -> dict[str, str]:
    # nvcc is installed too: without HIP_PLATFORM=amd, hipcc would hand the source to nvcc. hipcc also
    # leaves scratch directories in TMPDIR: point it at the test's own temporary directory.
    return dict(os.environ, HIP_PLATFORM="amd", TMPDIR=str(scratch))


def hipcc_cmd(arch: str, src: Path, out: Path) -> list[str]:
    # The judge's flags, with its stand-ins for ROCm 6's hip_bf16.h and hip_fp8.h where hipcc has none.
    return ["hipcc", "-O3", "-std=c++17", "-fPIC", "-shared", f"--offload-arch={arch}",
            "-idirafter", str(HIP_COMPAT_DIR), str(src), "-o", str(out)]


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
    ("tag not a lowercase word", _set(("tags",), ["memory-bound", "Matrix Cores"]), "tags[1]: 'Matrix Cores'"),
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

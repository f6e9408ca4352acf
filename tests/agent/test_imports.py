"""What a compiled solution imports (agent/judging/imports.py), and the compile-time refusal of imports the
problem or the judge forbids (rules over the source text are easy to dodge).
The corpus holds the attacks end to end: token_pasted_stream, dlopen_split_strings and
corpus_matmul/numpy_openblas."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.judging.compiler import LOWP_INCLUDE_DIR
from agent.judging.imports import NotAnElfLibrary, imported_symbols
from agent.judging.precheck import check_imports
from agent.sandbox.toolchain import CompileRejected
from tests.agent.conftest import load_problem

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
CORPUS_MATMUL = Path(__file__).resolve().parent / "corpus_matmul"


def build(tmp_path: Path, source: str, name: str = "lib.so") -> Path:
    (tmp_path / "lib.cpp").write_text(source)
    subprocess.run(["g++", "-O1", "-fPIC", "-shared", "-I", str(LOWP_INCLUDE_DIR), "-o", str(tmp_path / name),
                    str(tmp_path / "lib.cpp")], check=True, timeout=120)
    return tmp_path / name


def test_the_imports_are_the_undefined_dynamic_symbols_as_nm_lists_them(tmp_path: Path) -> None:
    library = build(tmp_path, '#include <cmath>\n#include <cstdlib>\nextern "C" int remote(int);\n'
                              'extern "C" float solution(float x) { return std::exp(x) + remote(std::rand()); }\n')
    names = imported_symbols(library)
    assert {"remote", "rand", "expf"} <= set(names)
    assert "solution" not in names
    if shutil.which("nm"):
        listed = subprocess.run(["nm", "-D", "--undefined-only", str(library)], capture_output=True, text=True,
                                check=True).stdout.split()
        assert sorted(names) == sorted(n.split("@")[0] for n in listed if n not in ("U", "w"))


@pytest.mark.parametrize("content", [b"", b"not an elf file at all" * 4, b"\x7fELF\x01\x01" + b"\0" * 80,
                                     b"\x7fELF\x02\x01" + b"\0" * 34 + b"\xff" * 8 + b"\0" * 20],
                         ids=["empty", "text", "32-bit", "headers-past-the-end"])
def test_a_file_that_is_not_a_readable_library_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.so"
    path.write_bytes(content)
    with pytest.raises(NotAnElfLibrary):
        imported_symbols(path)
    with pytest.raises(CompileRejected, match="could not be read"):
        check_imports(load_problem("vector-add"), "cpp", path)


@pytest.mark.parametrize(("slug", "source", "words"), [
    ("vector-add", '#define J(a, b) a##b\nextern "C" int J(hip, StreamCreate)(void**);\n'
                   'extern "C" void f() { void* s; J(hip, StreamCreate)(&s); }\n', "imports hipStreamCreate"),
    ("vector-add", '#include <dlfcn.h>\nextern "C" void* f() { return dlopen("libroc" "blas.so", RTLD_NOW); }\n',
     "calls dlopen()"),
    ("matmul-fp32", (CORPUS_MATMUL / "numpy_openblas.cpp").read_text(), "imports scipy_cblas_sgemm64_"),
], ids=["token-pasted", "dlopen", "numpy-openblas"])
def test_a_forbidden_import_is_refused_whatever_the_source_spelled(tmp_path: Path, slug: str, source: str,
                                                                    words: str) -> None:
    with pytest.raises(CompileRejected, match=words):
        check_imports(load_problem(slug), "cpp", build(tmp_path, source))


@pytest.mark.slow  # compiles every problem's solutions
def test_the_catalogues_own_solutions_import_nothing_forbidden(tmp_path: Path) -> None:
    for solution in sorted(Path(__file__).resolve().parents[2].glob("problems/*/solutions/cpp.cpp")):
        library = build(tmp_path, solution.read_text(), f"{solution.parent.parent.name}.so")
        check_imports(load_problem(solution.parent.parent.name), "cpp", library)


def test_a_refused_build_ends_the_job_as_a_compile_error(judge_run_job: Any) -> None:
    source = (CORPUS_MATMUL / "numpy_openblas.cpp").read_text()
    result, events = judge_run_job(load_problem("matmul-fp32"), source, "cpp", "compile")
    assert result["status"] == "COMPILE_ERROR"
    assert "imports scipy_cblas_sgemm64_" in result["reason"]
    assert [e.data["ok"] for e in events if e.kind == "COMPILE_RESULT"] == [False]


def test_a_library_without_solution_is_refused_when_asked(tmp_path: Path) -> None:
    # precheck saw `solution` in the text; the preprocessor left it out.
    library = build(tmp_path, '#if 0\nextern "C" void solution(float* x) { x[0] = 1; }\n#endif\n'
                              'extern "C" void other(float* x) { x[0] = 2; }\n')
    check_imports(load_problem("vector-add"), "cpp", library)  # the load says it (test_judge.py)
    with pytest.raises(CompileRejected, match="^no solution here$"):
        check_imports(load_problem("vector-add"), "cpp", library, "no solution here")
    defined = build(tmp_path, 'extern "C" void solution(float* x) { x[0] = 1; }\n', "defined.so")
    check_imports(load_problem("vector-add"), "cpp", defined, "no solution here")

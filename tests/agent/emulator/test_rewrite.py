"""The source rewriter: launches, dynamic shared memory, static shared-memory checks, what it must
leave alone (comments, strings, operator<<<), line numbers, and the errors it reports."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from agent.emulator.rewrite import (
    MAX_LAUNCHES,
    MAX_SHARED_DECLARATIONS,
    ParseBudget,
    RewriteError,
    blank_non_code,
    rewrite_source,
)
from agent.emulator.vectors import rewrite_vector_types


def launch(callee: str, config: str) -> str:
    return f"::hjemu::launch_named(HJEMU_KERNEL_NAME({callee}), HJEMU_KERNEL_BODY({callee}), {config})"


@pytest.mark.parametrize(("source", "expected"), [
    ("k<<<g, b>>>(x);", launch("k", "g, b") + "(x);"),
    ("k<float, 4><<<grid, block, 0, stream>>>(a, n);", launch("k<float, 4>", "grid, block, 0, stream") + "(a, n);"),
    ("k<T, (N > 2)><<<1, 2>>>();", launch("k<T, (N > 2)>", "1, 2") + "();"),
    ("ns::inner::k<<<1, 32>>>(p)", launch("ns::inner::k", "1, 32") + "(p)"),
    ("::k<<<1, 32>>>(p)", launch("::k", "1, 32") + "(p)"),
    ("(fn)<<<4, 256>>>(p)", launch("(fn)", "4, 256") + "(p)"),
    ("k<<<dim3((n + 255) / 256, f(a, b)), dim3(16, 16)>>>(x >> 1, (y > 2))",
     launch("k", "dim3((n + 255) / 256, f(a, b)), dim3(16, 16)") + "(x >> 1, (y > 2))"),
    ("k<<<n >> 8, 256>>>(p)", launch("k", "n >> 8, 256") + "(p)"),
    ("k<<<1'000, 256>>>(p)", launch("k", "1'000, 256") + "(p)"),
    ("k <<< 1, 2 >>> (p)", launch("k", " 1, 2 ") + " (p)"),
])
def test_launches_become_launch_calls(source: str, expected: str) -> None:
    assert rewrite_source(source) == expected


def test_the_argument_list_and_everything_around_is_left_as_written() -> None:
    source = "void f() {\n  k<<<1, 2>>>(a, g(b, c), \"s\");  // done\n}\n"
    assert rewrite_source(source) == ("void f() {\n  " + launch("k", "1, 2") + "(a, g(b, c), \"s\");  // done\n}\n")


@pytest.mark.parametrize("source", [
    "// k<<<1, 2>>>(x);\n",
    "/* k<<<1, 2>>>(x); */\n",
    'const char* s = "k<<<1, 2>>>(x)";\n',
    'const char* s = R"raw(k<<<1, 2>>>(x) " still)raw";\n',
    "char c = '<'; char d = '>';\n",
    "template <class T> std::ostream& operator<<<T>(std::ostream&, const X<T>&);\n",
    "#include <hip/hip_runtime.h>\n",
])
def test_comments_strings_and_operators_are_not_launches(source: str) -> None:
    assert rewrite_source(source) == source


def test_line_numbers_stay_where_they_were() -> None:
    source = ("kernel\n<<<\n  dim3(a,\n       b), // grid\n  block>>>(\n  x,\n  y);\n"
              "extern __shared__\n  float dyn\n  [];\nint after_everything;\n")
    out = rewrite_source(source)
    assert out.count("\n") == source.count("\n")
    assert out.splitlines()[-1] == "int after_everything;"
    assert out.splitlines()[5:7] == ["  x,", "  y);"]


def test_a_launch_inside_a_macro_keeps_its_continuation_lines() -> None:
    source = "#define LAUNCH(k, n) \\\n    k \\\n    <<<(n + 63) / 64, 64>>>(n)\n"
    out = rewrite_source(source)
    assert out.count("\\\n") == 2
    assert out.count("\n") == source.count("\n")
    assert "HJEMU_KERNEL_NAME(k)" in out


def test_filename_adds_a_line_directive_for_compiler_messages() -> None:
    assert rewrite_source("int x;\n", filename="solution.cu") == '#line 1 "solution.cu"\nint x;\n'


@pytest.mark.parametrize(("source", "line", "words"), [
    ("int a;\nk<<<1, 2(x);\n", 2, "no `>>>`"),
    ("k<<<1, 2>>>;\n", 1, "arguments in parentheses"),
    ("\n\nk<<<256>>>(x);\n", 3, "grid and a block"),
    ("<<<1, 2>>>(x);\n", 1, "must follow the kernel's name"),
    ("extern __shared__ float a[], b[];\n", 1, "extern __shared__ T name[];"),
    ("extern __shared__ float a[4];\n", 1, "extern __shared__ T name[];"),
    ("#define SMEM extern __shared__ float s[]\n", 1, "inside a macro"),
])
def test_what_cannot_be_rewritten_is_a_compile_error_sentence(source: str, line: int, words: str) -> None:
    with pytest.raises(RewriteError) as info:
        rewrite_source(source)
    assert info.value.line == line
    assert words in str(info.value)
    assert str(info.value).startswith(f"line {line}: ")


@pytest.mark.parametrize(("source", "declaration"), [
    ("extern __shared__ float s[];",
     "static thread_local float (&s)[] = *reinterpret_cast<float (*)[]>(::hjemu_dynamic_shared());"),
    ("extern __shared__ __align__(16) unsigned char smem[];",
     "static thread_local unsigned char (&smem)[] = *reinterpret_cast<unsigned char (*)[]>"
     "(::hjemu_dynamic_shared());"),
    ("extern __shared__ float tile[][33];",
     "static thread_local float (&tile)[][33] = *reinterpret_cast<float (*)[][33]>(::hjemu_dynamic_shared());"),
    ("extern __shared__ T buf[];",
     "static thread_local T (&buf)[] = *reinterpret_cast<T (*)[]>(::hjemu_dynamic_shared());"),
])
def test_dynamic_shared_memory_becomes_a_reference(source: str, declaration: str) -> None:
    assert rewrite_source(source) == declaration


def test_static_shared_arrays_are_checked_against_64_kib() -> None:
    out = rewrite_source("__shared__ float t[32][33], u[4];\n__shared__ MaxSum s;\n")
    names = re.findall(r"static_assert\(sizeof\((\w+)\) <= HJEMU_SHARED_BYTES", out)
    assert names == ["t", "u", "s"]
    assert out.count("\n") == 2


def test_the_shared_variables_of_one_function_are_checked_together(tmp_path: Path) -> None:
    """A running total per function body, one enumerator per declaration (a sum of every name so
    far made the text grow with the square of their number); namespace scope keeps none."""
    source = ("namespace a { __shared__ float g1[9000]; __shared__ float g2[9000]; }\n"
              "__global__ void k() {\n  __shared__ float x[9000];\n  if (1) { __shared__ int y; }\n"
              "  __shared__ float z[9000];\n}\n")
    out = rewrite_source(source)
    totals = re.findall(r"enum : unsigned long \{ (\w+) = ([^}]+) \}", out)
    assert totals == [("hjemu_shared_total_3", "sizeof(x)"), ("hjemu_shared_total_4", "sizeof(y)"),
                      ("hjemu_shared_total_5", "hjemu_shared_total_3 + sizeof(z)")]
    if shutil.which("g++") is None:
        return
    file = tmp_path / "k.cpp"  # x and z together: 72,000 bytes, more than a block's 64 KiB
    file.write_text("#define __shared__ static\n#define __global__\n#define HJEMU_SHARED_BYTES 65536\n" + out)
    compiled = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", str(file)], capture_output=True, text=True)
    assert compiled.returncode != 0
    assert "of this function, up to z, take more than" in compiled.stderr
    assert "g1" not in compiled.stderr
    assert "sizeof(x) <=" not in compiled.stderr


def test_parsing_is_linear_and_capped_for_hostile_sources() -> None:
    """Run in the trusted parent before any sandbox: what used to take the parent quadratic time and
    memory (a 64 KiB source of declarations in one function body made a 110 MB rewrite) now gives
    output of the source's order, or a compile error at a cap."""
    many = "__global__ void k() {\n" + "".join(f"__shared__ float v{i}[1];\n" for i in range(200)) + "}\n"
    out = rewrite_source(many)
    assert len(out) < 30 * len(many)  # a line of checks per declaration, not a sum of all so far (87x)
    too_many = "__global__ void k() {\n" + "__shared__ int a;\n" * (MAX_SHARED_DECLARATIONS + 1) + "}\n"
    with pytest.raises(RewriteError, match=f"more than {MAX_SHARED_DECLARATIONS} __shared__ declarations"):
        rewrite_source(too_many)
    launches = "void h() {\n" + "k<<<1, 1>>>();\n" * (MAX_LAUNCHES + 1) + "}\n"
    with pytest.raises(RewriteError, match=f"more than {MAX_LAUNCHES} kernel launches"):
        rewrite_source(launches)
    deep = "void h() { k<" + "(" * 20000 + "x" + ")" * 20000 + "><<<1, 1>>>(); }"  # brackets skipped by counting
    assert "::hjemu::launch_named(HJEMU_KERNEL_NAME(k<(((" in rewrite_source(deep)


def test_a_cancel_or_the_cpu_budget_stops_a_rewrite() -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(RewriteError, match="cancelled"):
        rewrite_source("k<<<1, 1>>>();", budget=ParseBudget(cancel))
    with pytest.raises(RewriteError, match="too complex"):
        rewrite_source("k<<<1, 1>>>();", budget=ParseBudget(cpu_s=-1.0))


@pytest.mark.parametrize("source", ["static __shared__ int s[8];", "__shared__ static int s[8];"])
def test_a_redundant_static_beside_shared_is_dropped(source: str) -> None:
    out = rewrite_source(source)
    assert "static" not in out.split(";")[0]
    assert out.startswith(source.replace("static", "      ").rstrip(";"))


def test_blanking_keeps_positions_and_newlines() -> None:
    source = 'a /* x\ny */ "s\\"q" \'c\' // end\nb'
    blanked = blank_non_code(source)
    assert len(blanked) == len(source)
    assert blanked.count("\n") == source.count("\n")
    assert blanked.startswith("a ")
    assert blanked.endswith("\nb")
    assert "x" not in blanked
    assert "q" not in blanked
    assert "end" not in blanked


def test_clang_ext_vector_typedefs_become_gcc_vector_types_on_the_same_line() -> None:
    source = ("typedef float floatx16 __attribute__((ext_vector_type(16)));\n"
              "typedef __attribute__((ext_vector_type(4))) _Float16 half4;\n"
              "using bf16x4 = short __attribute__((__ext_vector_type__(4)));\n"
              "typedef unsigned long long u4 __attribute__((ext_vector_type(4)));\n")
    assert rewrite_vector_types(source).splitlines() == [
        "typedef float floatx16 __attribute__((vector_size((16) * sizeof(float))));",
        "typedef _Float16 half4 __attribute__((vector_size((4) * sizeof(_Float16))));",
        "using bf16x4 = short __attribute__((vector_size((4) * sizeof(short))));",
        "typedef unsigned long long u4 __attribute__((vector_size((4) * sizeof(unsigned long long))));"]
    assert "vector_size" in rewrite_source(source)
    assert rewrite_vector_types("int x;") == "int x;"

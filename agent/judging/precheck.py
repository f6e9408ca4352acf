"""The checks before and after compiling that refuse a source with a reason the user can act on: the
`extern "C" solution` must match the problem's parameters, forbidden patterns are refused in the
source (comments aside) and, since those are easy to dodge, in the compiled library's imports.
Everything here reads the user's source in the trusted parent: linear in it (at most 64 KiB).
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.judging.imports import LOADER_SYMBOLS, NotAnElfLibrary, dynamic_symbols
from agent.problems.bundle import Param, Problem
from agent.problems.dtypes import element_type
from agent.sandbox.toolchain import CompileRejected

_EXTERN_C = re.compile(r'\bextern\s*"C"')
# A parameter list is short: bounded, so that a source of unclosed `void solution(` costs linear time.
_DECL = re.compile(r"\bvoid\s++solution\s*+\(([^)]{0,2000}+)\)")


def strip_comments(source: str) -> str:
    """The source with its comments replaced by a space, in one pass: a regular expression's lazy
    match of a block comment scans to the end once per unclosed `/*`, quadratic in a hostile source."""
    out: list[str] = []
    pos = 0
    while True:
        line, block = source.find("//", pos), source.find("/*", pos)
        starts = [k for k in (line, block) if k >= 0]
        if not starts:
            out.append(source[pos:])
            return "".join(out)
        start = min(starts)
        out.append(source[pos:start] + " ")
        if start == line:
            end = source.find("\n", start)
            pos = len(source) if end < 0 else end
        else:
            end = source.find("*/", start + 2)
            pos = len(source) if end < 0 else end + 2
_QUALIFIERS = re.compile(r"\b(const|__restrict__|__restrict|restrict|volatile|struct)\b")


def precheck(problem: Problem, language: str, source: str) -> None:
    """Refuse with a reason a user can act on: a missing/mis-typed `solution` or a forbidden pattern.
    Linear in the source (at most 64 KiB, agent.protocol): it runs in the trusted parent."""
    code = strip_comments(source)
    for rule in problem.forbidden:
        if language in rule.languages and rule.search(code):
            raise CompileRejected(f"forbidden: {rule.reason}")
    decls = [m for m in _DECL.finditer(code)]
    if not decls:
        raise CompileRejected(f"no `solution` function found: declare {problem.c_signature(language)}")
    definition = decls[-1]
    if not _EXTERN_C.search(code[: definition.start()]):
        raise CompileRejected(f'`solution` must be declared extern "C": {problem.c_signature(language)}')
    if "__global__" in code[max(0, definition.start() - 40): definition.start()]:
        raise CompileRejected("`solution` must be a host function that launches your kernel, not a __global__ kernel")
    params = [p.strip() for p in definition.group(1).split(",") if p.strip() and p.strip() != "void"]
    if len(params) != len(problem.signature):
        raise CompileRejected(
            f"`solution` takes {len(params)} parameter(s) but the problem declares {len(problem.signature)}: "
            f"{problem.c_signature(language)}"
        )
    for i, (text, want) in enumerate(zip(params, problem.signature, strict=True), start=1):
        if not _param_matches(text, want, language):
            raise CompileRejected(
                f"`solution` parameter {i} is `{' '.join(text.split())}` but the problem declares "
                f"`{want.declaration(language)}`: {problem.c_signature(language)}"
            )


def check_imports(problem: Problem, language: str, library: Path, missing: str | None = None) -> None:
    """Refuse a library that imports the loader or what the problem forbids (agent.judging.imports says
    why the source check alone is not enough), and with `missing` one that does not export `solution`
    (`missing` says why: without it, loading the library says so). Symbol names are matched with
    their underscores as word breaks too, so `\bcblas` catches `scipy_cblas_sgemm`."""
    try:
        symbols = dynamic_symbols(library)
    except (OSError, NotAnElfLibrary) as exc:
        raise CompileRejected(f"the compiled library could not be read ({exc})") from None
    for name in (name for name, defined in symbols if not defined):
        if name in LOADER_SYMBOLS:
            raise CompileRejected(f"forbidden: the solution calls {name}(); a solution loads and looks up no "
                                  "code at run time")
        for rule in problem.forbidden:
            if language in rule.languages and (rule.search(name) or rule.search(name.replace("_", " "))):
                raise CompileRejected(f"forbidden: {rule.reason} (the compiled library imports {name})")
    if missing is not None and ("solution", True) not in symbols:
        raise CompileRejected(missing)


def _param_matches(text: str, want: Param, language: str) -> bool:
    text = re.sub(r"\[\s*\]", "*", text)  # `float a[]` is a pointer too
    pointers = text.count("*")
    words = _QUALIFIERS.sub(" ", text.replace("*", " ").replace("&", " & ")).split()
    if "&" in words:
        return False
    words = [w.removeprefix("std::") for w in words]  # `std::size_t n` is `size_t n`
    spellings = element_type(want.ctype).spellings(language)
    # With a parameter name (`size_t n`) or without one (`size_t`, `unsigned long`).
    spelled = " ".join(words[:-1]) in spellings or " ".join(words) in spellings
    return pointers == (1 if want.pointer else 0) and spelled

"""The trusted parent reads the user's source before any sandbox (agent.emulator.rewrite, .vectors,
.source_text; agent.judging.precheck): every pass must be linear in the source, whatever
the source is. Proven by counting work (`ParseBudget.work`: the characters each pass reads), never
by a clock: for each hostile shape, the work per character of source does not grow when the source
grows sixteen-fold. A pass whose cost grew as the square of its input would show 16x here.
"""

from __future__ import annotations

import ast
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.emulator import rewrite, source_text, unsupported, vectors
from agent.emulator.rewrite import ParseBudget, RewriteError, rewrite_source
from agent.judging import precheck

SIZES = (2_000, 8_000, 32_000)  # characters; the protocol's limit on a source is 64 KiB


def _repeat(unit: str, size: int, head: str = "", tail: str = "") -> str:
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


HOSTILE: dict[str, Callable[[int], str]] = {
    # The outside report's source: a run of spaces after `ext_vector_type(` with no `)`, cubic before.
    "spaces_in_vector_attribute": lambda n: _repeat(" ", n, "typedef float x __attribute__((ext_vector_type(", "\n"),
    "spaces_in_vector_attribute_in_a_comment": lambda n: _repeat(" ", n, "// __attribute__((ext_vector_type(", "\n"),
    "vector_attributes_unclosed": lambda n: _repeat("__attribute__((ext_vector_type( ", n, "/* ", " */"),
    "vector_typedefs": lambda n: _repeat("typedef float v __attribute__((ext_vector_type(4)));\n", n),
    "vector_names_glued": lambda n: _repeat("ext_vector_type", n, "int a_", " = 1;"),
    "typedef_words_before_a_vector": lambda n: _repeat("typedef ", n, "",
                                                       "float v __attribute__((ext_vector_type(4)));"),
    "launch_configs_unclosed": lambda n: _repeat("(", n, "void h() { k<<<", ""),
    "launch_names_deep": lambda n: _repeat("(", n // 2, "void h() { k<", "x") + ")" * (n // 2) + "><<<1, 1>>>(); }",
    "spaces_before_launches": lambda n: _repeat(" ", n, "void h() { k", "<<<1, 1>>>(); }"),
    "shared_attributes_unclosed": lambda n: _repeat(
        "__global__ void k() { __shared__ float " + "__attribute__((" * 200 + "a;\n}\n", n),
    "shared_declarations_long": lambda n: _repeat("__global__ void k() { __shared__ float " + "a" * 3000 + ";\n}\n", n),
    "namespace_windows": lambda n: _repeat("namespace" + " " * 200 + "({ __shared__ int s; }", n),
    "braces": lambda n: _repeat("{", n, "__global__ void k() ", "__shared__ int s;"),
    "digit_separators": lambda n: _repeat("1'", n, "int x = ", "0;"),
    "block_comment_unclosed": lambda n: _repeat("/*", n),
    "raw_strings_unclosed": lambda n: _repeat('R"(', n),
    "string_escapes": lambda n: _repeat("\\\\", n, '"', '"'),
    "directives_continued": lambda n: _repeat("\\\n", n, "#define X ", "1\n"),
}


def _work(source: str) -> int:
    budget = ParseBudget(cpu_s=float("inf"))
    try:
        rewrite_source(source, budget=budget)
    except RewriteError:
        pass  # refusing is fine: the question is what reading it cost
    return budget.work


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_every_pass_is_linear_in_a_hostile_source(shape: str) -> None:
    sources = [HOSTILE[shape](size) for size in SIZES]
    per_char = [_work(source) / len(source) for source in sources]
    assert per_char[-1] <= 1.25 * per_char[0] + 1, (shape, per_char)
    assert per_char[-1] <= 3 * vectors.MAX_ALIAS_CHARS, (shape, per_char)  # and a small constant at that


def test_the_reported_source_is_refused_with_its_line() -> None:
    source = "int x;\ntypedef float v __attribute__((ext_vector_type(" + " " * 60_000 + "\n"
    with pytest.raises(RewriteError, match="line 2: cannot read this ext_vector_type attribute"):
        rewrite_source(source)


def test_the_budget_is_checked_while_a_long_pass_runs() -> None:
    """A pass looks at the cancel and the CPU budget every CHECK_EVERY units of work, not only between
    launches or declarations: a spent budget stops even one long scan."""
    budget = ParseBudget(cpu_s=-1.0)
    with pytest.raises(RewriteError, match="too complex"):
        rewrite_source(" " * (4 * source_text.CHECK_EVERY), budget=budget)
    assert budget.work <= 2 * source_text.CHECK_EVERY


# Every regular expression that reads the user's source, and why its cost is linear. A new one fails
# this test until it is added here with its reason (and, where it can backtrack, a shape above).
_REVIEWED_PATTERNS = {
    (rewrite, "_IDENT"): "one class, on a declaration of at most MAX_DECLARATION_CHARS",
    (rewrite, "_ALIGNMENT"): "alternatives that cannot both match a character; an unclosed one stops at the next "
                             "`(`, so attempts read disjoint text (shape shared_attributes_unclosed)",
    (rewrite, "_DYNAMIC_DECL"): "only on at most MAX_DYNAMIC_DECLARATION characters",
    (rewrite, "_BRACES"): "one class",
    (rewrite, "_NAMESPACE_OPENING"): "possessive, on a window of LOOKBACK characters (shape namespace_windows)",
    (source_text, "_RAW_PREFIX"): "on the three characters before a quote",
    (vectors, "_WORD"): "fullmatch of one class on one short token",
    (precheck, "_EXTERN_C"): "a literal with one class between its words",
    (precheck, "_DECL"): "possessive classes, the parameter list at most 2,000 characters",
    (precheck, "_QUALIFIERS"): "alternatives of literals, on a parameter list of at most 2,000 characters",
    # On the compiler's output (bounded by the job's output_kb), which quotes the user's lines, one line at a time.
    (unsupported, "_MISSING_HEADER"): "anchored; a location without `:` of at most 4,096 characters, then literals",
    (unsupported, "_UNDECLARED"): "anchored; one lazy run to a quote, then a literal prefix and a bounded word",
    (unsupported, "_ASM_USE"): "anchored; the bounded location, then a literal",
    (unsupported, "_ASM_CONSTRAINT"): "anchored; at most 4,096 characters tried before one literal each",
    (unsupported, "_ASSEMBLER"): "anchored; the bounded location, a literal, the rest of the line",
    (unsupported, "_SWIZZLE"): "anchored; a bounded member name, a quoted name whose class excludes its quote",
}
_REVIEWED_CALLS = {
    (rewrite, r"<<<"), (rewrite, r"\b__shared__\b"), (rewrite, r"[\[=]"), (rewrite, r"[\w:<>,\s*&]*"),
    (rewrite, r"\s*static\b"), (source_text, "\n"), (precheck, r"\[\s*\]"),
}


def _module_patterns(module: object) -> set[str]:
    return {name for name, value in vars(module).items() if isinstance(value, re.Pattern)}


def _inline_patterns(module: object) -> set[str]:
    """The first argument of every `re.<function>("literal", ...)` call in the module's source."""
    tree = ast.parse(Path(module.__file__).read_text())  # type: ignore[attr-defined]
    found: set[str] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr != "compile" and node.args and isinstance(node.args[0], ast.Constant)):
            found.add(str(node.args[0].value))
    return found


@pytest.mark.parametrize("module", [rewrite, source_text, vectors, precheck, unsupported], ids=lambda m: m.__name__)
def test_every_pattern_over_user_source_is_reviewed(module: object) -> None:
    reviewed = {name for (owner, name) in _REVIEWED_PATTERNS if owner is module}
    assert _module_patterns(module) == reviewed
    calls = {pattern for (owner, pattern) in _REVIEWED_CALLS if owner is module}
    assert _inline_patterns(module) == calls


def test_the_declaration_pattern_gives_nothing_back() -> None:
    """`void solution(` left open many times: each attempt reads at most its 2,000 characters."""
    assert "{0,2000}+" in precheck._DECL.pattern and r"\s++" in precheck._DECL.pattern


class _CancelAfter(ParseBudget):
    """Sets the job's cancel once `units` of work were charged, as the agent does from another thread."""

    def __init__(self, units: int) -> None:
        super().__init__(threading.Event(), cpu_s=float("inf"))
        self.units = units

    def charge(self, units: int, line: int = 1) -> None:
        if self.work >= self.units and self.cancel is not None:
            self.cancel.set()
        super().charge(units, line)


@pytest.mark.parametrize("shape", ["spaces_in_vector_attribute", "braces", "block_comment_unclosed"])
def test_a_cancel_stops_a_long_pass_within_a_bounded_amount_of_work(shape: str) -> None:
    budget = _CancelAfter(1_000)
    with pytest.raises(RewriteError, match="cancelled"):
        rewrite_source(HOSTILE[shape](64_000), budget=budget)
    assert budget.work <= 1_000 + 2 * source_text.CHECK_EVERY + 3 * vectors.MAX_ALIAS_CHARS

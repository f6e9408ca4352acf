"""Turn HIP/CUDA source into C++ that g++ compiles against the emulator's headers.

Three rewrites, each keeping every line where it was (g++'s errors name the user's lines):

- `kernel<<<grid, block[, shmem[, stream]]>>>(args)` becomes `::hjemu::launch_named(
  HJEMU_KERNEL_NAME(kernel), HJEMU_KERNEL_BODY(kernel), grid, block, ...)(args)`: the argument
  list is left untouched, the configuration is copied verbatim (C++ itself splits it), and the
  name is stringized by a macro, so a launch inside the user's own macro names the real kernel;
- `extern __shared__ T name[];` becomes a per-host-thread reference to the dynamic shared memory;
- after every other `__shared__` declaration, `static_assert`s that each variable, and the ones
  declared directly in the same function body together (a running total, one enumerator per
  declaration), fit in 64 KiB.

Comments, string and character literals (raw strings included) are never rewritten. What cannot
be rewritten is reported as a `RewriteError` whose text is a compile error sentence.

The source is the user's and this runs in the trusted parent, before any sandbox: every pass is
linear in the source (line numbers by bisection, one block stack, backward scans that stop at the
previous rewrite), the counts of launches and declarations and the length of a declaration are
capped, and a `ParseBudget` stops it at a CPU-time budget of its own thread or at the job's cancel.
"""

from __future__ import annotations

import re

from agent.emulator.source_text import (
    LOOKBACK,
    Lines,
    ParseBudget,
    RewriteError,
    blank_non_code,
    directives,
    in_spans,
    line_breaks,
    match_back,
    skip_space_back,
    word_before,
)
from agent.emulator.vectors import rewrite_vector_types

_IDENT = re.compile(r"[A-Za-z_]\w*")
_ALIGNMENT = re.compile(r"\b(?:__align__|alignas)\s*\((?:[^()]|\([^()]*\))*\)"
                        r"|\b__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")
_DYNAMIC_DECL = re.compile(r"^(?P<type>.*?)\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\](?P<rest>(?:\s*\[[^\]]*\])*)\s*$",
                           re.DOTALL)
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_BRACES = re.compile(r"[{}]")
# Possessive: the classes in sequence do not overlap, so nothing is given back (linear in the window).
_NAMESPACE_OPENING = re.compile(r'(\bnamespace\s*+[\w:]*+|\bextern\s*+"\s*+")\s*+$')
MAX_LAUNCHES = 512
MAX_SHARED_DECLARATIONS = 256
MAX_DECLARATION_CHARS = 4096
MAX_DYNAMIC_DECLARATION = 256  # `extern __shared__ T name[];` after `__shared__`


def _callee_start(code: str, end: int, floor: int) -> int:
    """Start of the kernel expression that ends at `end`: a (qualified, templated) name or a
    parenthesized expression; -1 when there is none after `floor`."""
    pos = end
    if pos > floor and code[pos - 1] == ")":
        return match_back(code, pos - 1, "(", ")", floor)
    if pos > floor and code[pos - 1] == ">":
        opening = match_back(code, pos - 1, "<", ">", floor)
        if opening < 0:
            return -1
        pos = skip_space_back(code, opening, floor)
    while True:
        start = pos
        while start > floor and (code[start - 1].isalnum() or code[start - 1] == "_"):
            start -= 1
        if start == pos or code[start].isdigit():
            return -1
        before = skip_space_back(code, start, floor)
        if before - 2 < floor or code[before - 2:before] != "::":
            return start
        pos = skip_space_back(code, before - 2, floor)
        if pos == floor or not (code[pos - 1].isalnum() or code[pos - 1] == "_"):
            return before - 2  # a name in the global namespace: ::kernel


def _close_of_launch(code: str, start: int) -> int:
    """Index of the `>>>` closing a configuration that starts at `start`, at bracket depth 0."""
    stack: list[str] = []
    k = start
    while k < len(code):
        ch = code[k]
        if ch in "([{":
            stack.append(ch)
        elif ch in ")]}":
            if not stack or stack.pop() != _CLOSERS[ch]:
                return -1
        elif not stack and code.startswith(">>>", k):
            return k
        elif ch == ";" and not stack:
            return -1
        k += 1
    return -1


def _has_top_level_comma(code: str) -> bool:
    depth = 0
    for ch in code:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            return True
    return False


def _rewrite_launches(text: str, budget: ParseBudget) -> str:
    code = blank_non_code(text, budget)
    lines = Lines(text)
    budget.charge(2 * len(code))  # the line starts and the search for `<<<`
    pieces: list[str] = []
    done = launches = 0
    for match in re.finditer(r"<<<", code):
        lt = match.start()
        if lt < done:
            continue
        line = lines.of(lt)
        budget.check(line)
        end = skip_space_back(code, lt, done)
        if code[max(done, end - 8):end] == "operator":
            continue
        launches += 1
        if launches > MAX_LAUNCHES:
            raise RewriteError(line, f"more than {MAX_LAUNCHES} kernel launches in one source")
        start = _callee_start(code, end, done)
        budget.charge(lt - (done if start < 0 else start), line)  # read back from `<<<`, never past `done`
        if start < 0:
            raise RewriteError(line, "cannot rewrite the kernel launch: `<<<` must follow the kernel's name")
        gt = _close_of_launch(code, lt + 3)
        budget.charge((len(code) if gt < 0 else gt) - lt, line)
        if gt < 0:
            raise RewriteError(line, "cannot rewrite the kernel launch: no `>>>` closes this `<<<`")
        config = text[lt + 3:gt]
        if not _has_top_level_comma(code[lt + 3:gt]):
            raise RewriteError(line, "a kernel launch needs at least a grid and a block size: "
                                     "`kernel<<<grid, block>>>(arguments)`")
        after = gt + 3
        while after < len(code) and code[after].isspace():
            after += 1
        budget.charge(2 * (after - lt), line)  # the configuration's commas, copies and the spaces after it
        if after >= len(code) or code[after] != "(":
            raise RewriteError(line, "cannot rewrite the kernel launch: expected the kernel's arguments "
                                     "in parentheses after `>>>`")
        callee = code[start:end]
        pieces.append(text[done:start])
        pieces.append(f"::hjemu::launch_named(HJEMU_KERNEL_NAME({callee}), HJEMU_KERNEL_BODY({callee}), {config})")
        pieces.append(line_breaks(code[end:lt]))
        done = gt + 3
    pieces.append(text[done:])
    return "".join(pieces)


def _declaration_end(code: str, start: int) -> int:
    """The `;` ending a declaration that starts at `start`, within MAX_DECLARATION_CHARS; -1."""
    depth = 0
    for k in range(start, min(len(code), start + MAX_DECLARATION_CHARS)):
        depth += code[k] in "([{"
        depth -= code[k] in ")]}"
        if code[k] == ";" and depth == 0:
            return k
        if depth < 0:
            return -1
    return -1


class _Blocks:
    """The innermost `{...}` open at a position, for positions visited in order: one stack and one
    pass over the source in all. A namespace or extern "C" block counts as namespace scope (-1)."""

    def __init__(self, code: str, budget: ParseBudget) -> None:
        self.code, self.cursor, self.budget = code, 0, budget
        self.stack: list[tuple[int, bool]] = []  # (where it opens, a namespace's)

    def innermost(self, pos: int) -> int:
        for brace in _BRACES.finditer(self.code, self.cursor, pos):
            k = brace.start()
            if self.code[k] == "{":
                self.budget.charge(LOOKBACK)
                window = self.code[max(0, k - LOOKBACK):k]
                self.stack.append((k, _NAMESPACE_OPENING.search(window) is not None))
            elif self.stack:
                self.stack.pop()
        self.budget.charge(max(0, pos - self.cursor))
        self.cursor = max(self.cursor, pos)
        if not self.stack or self.stack[-1][1]:
            return -1
        return self.stack[-1][0]


def _size_checks(names: list[str], total: str | None, previous: str | None) -> str:
    """static_asserts that each variable fits the 64 KiB of shared memory a block has, and with
    `total` (the name of this declaration's running total in its function body) that all of the
    body's shared variables declared so far do: an enumerator adds these to `previous`'s, so the
    text grows by one line per declaration, not by the square of their number."""
    checks = [f' static_assert(sizeof({name}) <= HJEMU_SHARED_BYTES, "hjemu: __shared__ {name} takes more '
              f'than the 64 KiB of shared memory a block has");' for name in names]
    if total is not None and names:
        terms = " + ".join([*([previous] if previous else []), *(f"sizeof({name})" for name in names)])
        checks.append(f" enum : unsigned long {{ {total} = {terms} }};")
        if previous or len(names) > 1:
            checks.append(f' static_assert({total} <= HJEMU_SHARED_BYTES, "hjemu: the __shared__ variables of '
                          f'this function, up to {names[-1]}, take more than the 64 KiB of shared memory a block '
                          'has");')
    return "".join(checks)


def _rewrite_shared(text: str, budget: ParseBudget) -> str:
    code = blank_non_code(text, budget)
    lines = Lines(text)
    macros = directives(code)
    blocks = _Blocks(code, budget)
    budget.charge(3 * len(code))  # the line starts, the directives and the search for `__shared__`
    pieces: list[str] = []
    totals: dict[int, str] = {}  # function body -> the name of its latest running total
    done = declarations = 0
    for match in re.finditer(r"\b__shared__\b", code):
        if match.start() < done:
            continue
        line = lines.of(match.start())
        budget.check(line)
        declarations += 1
        if declarations > MAX_SHARED_DECLARATIONS:
            raise RewriteError(line, f"more than {MAX_SHARED_DECLARATIONS} __shared__ declarations in one source")
        extern = word_before(code, match.start(), "extern", done)
        budget.charge(match.start() - skip_space_back(code, match.start(), done) + 6, line)
        if in_spans(macros, match.start()):
            if extern >= 0:
                raise RewriteError(line, "cannot rewrite `extern __shared__` inside a macro: declare it "
                                         "directly as `extern __shared__ T name[];`")
            continue
        semicolon = _declaration_end(code, match.end())
        # The declaration, at most MAX_DECLARATION_CHARS, is read a bounded number of times (end, names,
        # alignment, the text before it back to `done`).
        budget.charge(4 * ((match.end() + MAX_DECLARATION_CHARS if semicolon < 0 else semicolon) - done), line)
        if semicolon < 0:
            raise RewriteError(line, "cannot find the end (`;`) of this `__shared__` declaration within "
                                     f"{MAX_DECLARATION_CHARS} characters")
        if extern >= 0:
            declaration = _ALIGNMENT.sub(" ", code[match.end():semicolon])
            # Short, as such a declaration is: the pattern's lazy type backtracks over its length.
            parsed = _DYNAMIC_DECL.match(declaration) if len(declaration) <= MAX_DYNAMIC_DECLARATION else None
            if parsed is None or "," in declaration:
                raise RewriteError(line, "cannot rewrite this dynamic shared memory declaration: write it "
                                         "as `extern __shared__ T name[];`")
            type_text = " ".join(parsed["type"].split())
            rest = " ".join(parsed["rest"].split())
            pieces.append(text[done:extern])
            pieces.append(f"static thread_local {type_text} (&{parsed['name']})[]{rest} = "
                          f"*reinterpret_cast<{type_text} (*)[]{rest}>(::hjemu_dynamic_shared());")
            pieces.append(line_breaks(code[extern:semicolon]))
        else:
            pieces.append(_without_static(text, code, done, match.start(), match.end(), semicolon + 1))
            names = _declared_names(code[match.end():semicolon])
            block = blocks.innermost(match.start())
            total = f"hjemu_shared_total_{declarations}" if block >= 0 else None
            pieces.append(_size_checks(names, total, totals.get(block)))
            if total is not None and names:
                totals[block] = total
        done = semicolon + 1
    pieces.append(text[done:])
    return "".join(pieces)


def _without_static(text: str, code: str, start: int, shared: int, shared_end: int, end: int) -> str:
    """text[start:end] with a `static` just before or after `__shared__` blanked: `__shared__`
    already means `static thread_local`, and nvcc accepts `static __shared__`."""
    chars = list(text[start:end])
    before = word_before(code, shared, "static", start)
    after = re.match(r"\s*static\b", code[shared_end:end])
    spans = [(before - start, before - start + 6)] if before >= 0 else []
    if after:
        spans.append((shared_end - start + after.end() - 6, shared_end - start + after.end()))
    for lo, hi in spans:
        chars[lo:hi] = " " * (hi - lo)
    return "".join(chars)


def _declared_names(declaration: str) -> list[str]:
    """Names declared by `T a[4], b;`, best effort: an unparsable declarator is skipped."""
    declaration = _ALIGNMENT.sub(" ", declaration)
    parts: list[str] = [""]
    depth = 0
    for ch in declaration:
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        if ch == "," and depth == 0:
            parts.append("")
        else:
            parts[-1] += ch
    names = []
    for part in parts:
        head = re.split(r"[\[=]", part, maxsplit=1)[0]
        idents = _IDENT.findall(head)
        if idents and re.fullmatch(r"[\w:<>,\s*&]*", head):  # one class: no backtracking to blow up
            names.append(idents[-1])
    return names


def rewrite_source(text: str, filename: str | None = None, budget: ParseBudget | None = None) -> str:
    """The source g++ compiles; with `filename`, a #line directive makes g++ name that file."""
    budget = budget or ParseBudget()
    rewritten = _rewrite_shared(_rewrite_launches(rewrite_vector_types(text, budget), budget), budget)
    if filename is None:
        return rewritten
    return f'#line 1 "{filename}"\n{rewritten}'

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

import bisect
import re
import sys
import threading
import time
from dataclasses import dataclass

_IDENT = re.compile(r"[A-Za-z_]\w*")
_RAW_PREFIX = re.compile(r"(?:u8|[uUL])?R$")
_ALIGNMENT = re.compile(r"\b(?:__align__|alignas)\s*\((?:[^()]|\([^()]*\))*\)"
                        r"|\b__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")
_DYNAMIC_DECL = re.compile(r"^(?P<type>.*?)\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\](?P<rest>(?:\s*\[[^\]]*\])*)\s*$",
                           re.DOTALL)
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_BRACES = re.compile(r"[{}]")
_NAMESPACE_OPENING = re.compile(r'(\bnamespace\s*[\w:]*|\bextern\s*"\s*")\s*$')
MAX_LAUNCHES = 512
MAX_SHARED_DECLARATIONS = 256
MAX_DECLARATION_CHARS = 4096
MAX_DYNAMIC_DECLARATION = 256  # `extern __shared__ T name[];` after `__shared__`
MAX_RAW_DELIMITER = 16  # the C++ standard's limit
LOOKBACK = 256  # how far back a namespace's name or a number's digit separators are read
CPU_BUDGET_S = 2.0  # of this thread's CPU time; linear passes over 64 KiB take a few per cent of it


@dataclass
class RewriteError(ValueError):
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ParseBudget:
    """Stops a rewrite at `cpu_s` of its thread's CPU time (never the wall clock: a loaded machine
    must not decide) or when `cancel` is set; `check` is called between steps."""

    def __init__(self, cancel: threading.Event | None = None, cpu_s: float = CPU_BUDGET_S) -> None:
        self.cancel, self.limit = cancel, time.thread_time() + cpu_s

    def check(self, line: int = 1) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise RewriteError(line, "the job was cancelled")
        if time.thread_time() > self.limit:
            raise RewriteError(line, "the source is too complex to rewrite for the emulated device")


class _Lines:
    """Line numbers by position, in O(log n) each."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def of(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)


def blank_non_code(text: str, budget: ParseBudget | None = None) -> str:
    """The text with comments and literal contents replaced by spaces (newlines and line-continuing
    backslashes kept), so every position still means the same place in the original."""
    out = list(text)
    i, n = 0, len(text)
    steps = 0

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        steps += 1
        if budget is not None and steps % 4096 == 0:
            budget.check()
        c = text[i]
        if text.startswith("//", i):
            end = i
            while end < n and not (text[end] == "\n" and text[end - 1] != "\\"):
                end += 1
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c == '"' and _RAW_PREFIX.search(text[max(0, i - 3):i]) and not _continues_identifier(text, i):
            open_paren = text.find("(", i, i + 2 + MAX_RAW_DELIMITER)
            delimiter = text[i + 1:open_paren] if open_paren >= 0 else ""
            close = text.find(f"){delimiter}\"", open_paren + 1) if open_paren >= 0 else -1
            end = n if close < 0 else close + len(delimiter) + 2
            blank(i + 1, end - 1)
            i = end
        elif c == '"' or (c == "'" and not _is_digit_separator(text, i)):
            end = i + 1
            while end < n and text[end] != c and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            blank(i + 1, min(end, n))
            i = end + 1
        else:
            i += 1
    return "".join(out)


def _continues_identifier(text: str, quote: int) -> bool:
    """`fooR"` is an identifier ending in R followed by a string, not a raw string (a raw string's
    prefix is at most three characters: only those are read)."""
    start = quote - 1
    while start >= max(0, quote - 4) and (text[start].isalnum() or text[start] == "_"):
        start -= 1
    return _RAW_PREFIX.fullmatch(text[start + 1:quote]) is None


def _is_digit_separator(text: str, i: int) -> bool:
    """`1'000`: the quote inside a number, read back at most LOOKBACK characters."""
    start = i - 1
    while start >= max(0, i - LOOKBACK) and (text[start].isalnum() or text[start] in "_.'"):
        start -= 1
    return start + 1 < i and text[start + 1].isdigit()


def _line_breaks(code: str) -> str:
    """Only the line breaks of `code` (with their continuation backslashes, inside a macro)."""
    return "".join("\\\n" if code[k - 1:k] == "\\" else "\n" for k, ch in enumerate(code) if ch == "\n")


def _match_back(code: str, close: int, opener: str, closer: str, floor: int = 0) -> int:
    """Index of the `opener` matching code[close] == closer, not below `floor`, or -1.
    Parenthesized groups are skipped whole, so `k<T, (N > 2)>` matches its angle brackets."""
    depth = paren = 0
    for k in range(close, floor - 1, -1):
        c = code[k]
        if opener != "(":
            if c == ")":
                paren += 1
                continue
            if c == "(":
                paren = max(paren - 1, 0)
                continue
            if paren:
                continue
        if c == closer:
            depth += 1
        elif c == opener:
            depth -= 1
            if depth == 0:
                return k
    return -1


def _skip_space_back(code: str, pos: int, floor: int = 0) -> int:
    """Back over whitespace and line continuations (a launch may be split inside a macro), not
    below `floor`."""
    while pos > floor and (code[pos - 1].isspace() or (code[pos - 1] == "\\" and code[pos:pos + 1] == "\n")):
        pos -= 1
    return pos


def _word_before(code: str, pos: int, word: str, floor: int) -> int:
    """Where `word` starts when it is the whole word before `pos` (whitespace between, at least
    one), not below `floor`; -1 otherwise."""
    end = _skip_space_back(code, pos, floor)
    start = end - len(word)
    if end == pos or start < floor or code[start:end] != word:
        return -1
    if start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        return -1
    return start


def _callee_start(code: str, end: int, floor: int) -> int:
    """Start of the kernel expression that ends at `end`: a (qualified, templated) name or a
    parenthesized expression; -1 when there is none after `floor`."""
    pos = end
    if pos > floor and code[pos - 1] == ")":
        return _match_back(code, pos - 1, "(", ")", floor)
    if pos > floor and code[pos - 1] == ">":
        opening = _match_back(code, pos - 1, "<", ">", floor)
        if opening < 0:
            return -1
        pos = _skip_space_back(code, opening, floor)
    while True:
        start = pos
        while start > floor and (code[start - 1].isalnum() or code[start - 1] == "_"):
            start -= 1
        if start == pos or code[start].isdigit():
            return -1
        before = _skip_space_back(code, start, floor)
        if before - 2 < floor or code[before - 2:before] != "::":
            return start
        pos = _skip_space_back(code, before - 2, floor)
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
    lines = _Lines(text)
    pieces: list[str] = []
    done = launches = 0
    for match in re.finditer(r"<<<", code):
        lt = match.start()
        if lt < done:
            continue
        line = lines.of(lt)
        budget.check(line)
        end = _skip_space_back(code, lt, done)
        if code[max(done, end - 8):end] == "operator":
            continue
        launches += 1
        if launches > MAX_LAUNCHES:
            raise RewriteError(line, f"more than {MAX_LAUNCHES} kernel launches in one source")
        start = _callee_start(code, end, done)
        if start < 0:
            raise RewriteError(line, "cannot rewrite the kernel launch: `<<<` must follow the kernel's name")
        gt = _close_of_launch(code, lt + 3)
        if gt < 0:
            raise RewriteError(line, "cannot rewrite the kernel launch: no `>>>` closes this `<<<`")
        config = text[lt + 3:gt]
        if not _has_top_level_comma(code[lt + 3:gt]):
            raise RewriteError(line, "a kernel launch needs at least a grid and a block size: "
                                     "`kernel<<<grid, block>>>(arguments)`")
        after = gt + 3
        while after < len(code) and code[after].isspace():
            after += 1
        if after >= len(code) or code[after] != "(":
            raise RewriteError(line, "cannot rewrite the kernel launch: expected the kernel's arguments "
                                     "in parentheses after `>>>`")
        callee = code[start:end]
        pieces.append(text[done:start])
        pieces.append(f"::hjemu::launch_named(HJEMU_KERNEL_NAME({callee}), HJEMU_KERNEL_BODY({callee}), {config})")
        pieces.append(_line_breaks(code[end:lt]))
        done = gt + 3
    pieces.append(text[done:])
    return "".join(pieces)


def _directives(code: str) -> list[tuple[int, int]]:
    """(start, end) of every preprocessor directive, its continued lines included, in order."""
    spans: list[tuple[int, int]] = []
    pos, n = 0, len(code)
    while pos < n:
        end = code.find("\n", pos)
        end = n if end < 0 else end
        first = pos
        while first < end and code[first] in " \t":
            first += 1
        if first < end and code[first] == "#":
            while end < n and end > pos and code[end - 1] == "\\":  # continued on the next line
                nxt = code.find("\n", end + 1)
                end = n if nxt < 0 else nxt
            spans.append((pos, end))
        pos = end + 1
    return spans


def _in_spans(spans: list[tuple[int, int]], pos: int) -> bool:
    at = bisect.bisect_right(spans, (pos, sys.maxsize)) - 1
    return at >= 0 and spans[at][0] <= pos <= spans[at][1]


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

    def __init__(self, code: str) -> None:
        self.code, self.cursor = code, 0
        self.stack: list[tuple[int, bool]] = []  # (where it opens, a namespace's)

    def innermost(self, pos: int) -> int:
        for brace in _BRACES.finditer(self.code, self.cursor, pos):
            k = brace.start()
            if self.code[k] == "{":
                window = self.code[max(0, k - LOOKBACK):k]
                self.stack.append((k, _NAMESPACE_OPENING.search(window) is not None))
            elif self.stack:
                self.stack.pop()
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
    lines = _Lines(text)
    directives = _directives(code)
    blocks = _Blocks(code)
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
        extern = _word_before(code, match.start(), "extern", done)
        if _in_spans(directives, match.start()):
            if extern >= 0:
                raise RewriteError(line, "cannot rewrite `extern __shared__` inside a macro: declare it "
                                         "directly as `extern __shared__ T name[];`")
            continue
        semicolon = _declaration_end(code, match.end())
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
            pieces.append(_line_breaks(code[extern:semicolon]))
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
    before = _word_before(code, shared, "static", start)
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
    rewritten = _rewrite_shared(_rewrite_launches(text, budget), budget)
    if filename is None:
        return rewritten
    return f'#line 1 "{filename}"\n{rewritten}'

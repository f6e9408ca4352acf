"""The source text a rewrite reads: comments and literals blanked with every position kept, line
numbers by bisection, bracket matching and look-backs that stop where the caller says, preprocessor
directives as spans, and the CPU budget every pass checks (agent.emulator.rewrite).

Everything here is linear in the text it reads: the text is the user's, and it is read in the
trusted parent before any sandbox.
"""

from __future__ import annotations

import bisect
import re
import sys
import threading
import time
from dataclasses import dataclass

_RAW_PREFIX = re.compile(r"(?:u8|[uUL])?R$")
MAX_RAW_DELIMITER = 16  # the C++ standard's limit
LOOKBACK = 256  # how far back from a `{` the rewriter looks for the `namespace` that opens it
CPU_BUDGET_S = 2.0  # of this thread's CPU time; linear passes over 64 KiB take a few per cent of it


@dataclass
class RewriteError(ValueError):
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


CHECK_EVERY = 4096  # units of work between two looks at the clock and the cancel


class ParseBudget:
    """Stops a rewrite at `cpu_s` of its thread's CPU time (never the wall clock: a loaded machine
    must not decide) or when `cancel` is set; `check` is called between steps.

    `work` counts what the passes read: every character a scan visits, every slice handed to a
    regular expression (each of which is linear, or reads a slice of bounded length). The tests
    prove each pass linear by this count, which no machine's load changes."""

    def __init__(self, cancel: threading.Event | None = None, cpu_s: float = CPU_BUDGET_S) -> None:
        self.cancel, self.limit = cancel, time.thread_time() + cpu_s
        self.work = 0
        self._unchecked = 0

    def check(self, line: int = 1) -> None:
        self._unchecked = 0
        if self.cancel is not None and self.cancel.is_set():
            raise RewriteError(line, "the job was cancelled")
        if time.thread_time() > self.limit:
            raise RewriteError(line, "the source is too complex to rewrite for the emulated device")

    def charge(self, units: int, line: int = 1) -> None:
        """Count `units` of work; look at the clock and the cancel every CHECK_EVERY of them."""
        self.work += units
        self._unchecked += units
        if self._unchecked >= CHECK_EVERY:
            self.check(line)


class Lines:
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
    budget = budget or ParseBudget(cpu_s=float("inf"))

    def blank(start: int, end: int) -> None:
        budget.charge(end - start)
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    run = -1  # where the run of [A-Za-z0-9_.'] that ends at i started (a number if it starts with a digit)
    while i < n:
        budget.charge(1)
        c = text[i]
        if c.isalnum() or c in "_.":
            run = i if run < 0 else run
            i += 1
            continue
        if c == "'" and run >= 0 and text[run].isdigit():  # `1'000`: a digit separator
            i += 1
            continue
        run = -1
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
        elif c in "\"'":
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


def line_breaks(code: str) -> str:
    """Only the line breaks of `code` (with their continuation backslashes, inside a macro)."""
    return "".join("\\\n" if code[k - 1:k] == "\\" else "\n" for k, ch in enumerate(code) if ch == "\n")


def match_back(code: str, close: int, opener: str, closer: str, floor: int = 0) -> int:
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


def skip_space_back(code: str, pos: int, floor: int = 0) -> int:
    """Back over whitespace and line continuations (a launch may be split inside a macro), not
    below `floor`."""
    while pos > floor and (code[pos - 1].isspace() or (code[pos - 1] == "\\" and code[pos:pos + 1] == "\n")):
        pos -= 1
    return pos


def word_before(code: str, pos: int, word: str, floor: int) -> int:
    """Where `word` starts when it is the whole word before `pos` (whitespace between, at least
    one), not below `floor`; -1 otherwise."""
    end = skip_space_back(code, pos, floor)
    start = end - len(word)
    if end == pos or start < floor or code[start:end] != word:
        return -1
    if start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        return -1
    return start


def directives(code: str) -> list[tuple[int, int]]:
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


def in_spans(spans: list[tuple[int, int]], pos: int) -> bool:
    at = bisect.bisect_right(spans, (pos, sys.maxsize)) - 1
    return at >= 0 and spans[at][0] <= pos <= spans[at][1]

"""Clang's `__attribute__((ext_vector_type(N)))` (MFMA kernels declare their operand and
accumulator registers with it) as g++'s `__attribute__((vector_size(N * sizeof(T))))`.

g++ ignores ext_vector_type with a warning, leaving a scalar where the kernel means 16 floats, so
every typedef or alias that uses it is rewritten in place, keeping its line breaks (line numbers do
not move):

    typedef float floatx16 __attribute__((ext_vector_type(16)));
    typedef __attribute__((ext_vector_type(4))) _Float16 half4;
    typedef float __attribute__((ext_vector_type(4))) floatx4;
    using bf16x4 = short __attribute__((ext_vector_type(4)));
    template <typename T, int N> using vec = T __attribute__((ext_vector_type(N)));

Element access is by subscript (`acc[i]`) as with g++ vectors. An ext_vector_type that is not in
such a declaration is a `RewriteError` (a compile error naming the line): left to g++, it would be a
scalar and a silent wrong answer.

The source is the user's and this runs in the trusted parent: one forward pass finds the attribute
by its name, and every look around it reads a slice of at most MAX_ALIAS_CHARS characters, each
statement once (hand-written scans, no regular expression over user text; `ParseBudget.work`
counts what is read).
"""

from __future__ import annotations

import bisect
import re

from agent.emulator.source_text import Lines, ParseBudget, RewriteError, blank_non_code, line_breaks

MAX_ALIAS_CHARS = 512  # a vector typedef is one short statement
_NAME = "ext_vector_type"
_WORD = re.compile(r"[A-Za-z_][\w:]*")  # fullmatch on one short token: linear
_HOW = ("write `typedef T name __attribute__((ext_vector_type(N)));` "
        "or `using name = T __attribute__((ext_vector_type(N)));`")


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _is_attribute_name(code: str, pos: int) -> bool:
    """The word at `pos` is `ext_vector_type` or `__ext_vector_type__` (two characters read each side)."""
    def word_at(k: int) -> bool:
        return 0 <= k < len(code) and _is_word_char(code[k])

    end = pos + len(_NAME)
    if code[max(0, pos - 2):pos] == "__" and code[end:end + 2] == "__":
        return not word_at(pos - 3) and not word_at(end + 2)
    return not word_at(pos - 1) and not word_at(end)


def _skip_space(code: str, pos: int, end: int) -> int:
    while pos < end and code[pos].isspace():
        pos += 1
    return pos


def _skip_space_back(code: str, pos: int, floor: int) -> int:
    while pos > floor and code[pos - 1].isspace():
        pos -= 1
    return pos


def _attribute_span(code: str, name_at: int, line: int) -> tuple[int, int, str]:
    """(start, end, N) of `__attribute__((ext_vector_type(N)))` around the name found at `name_at`;
    reads at most MAX_ALIAS_CHARS characters either side."""
    floor = max(0, name_at - MAX_ALIAS_CHARS)
    ceiling = min(len(code), name_at + MAX_ALIAS_CHARS)
    start = name_at - 2 if code[max(0, name_at - 2):name_at] == "__" else name_at
    end = name_at + len(_NAME)
    if start != name_at:
        if code[end:end + 2] != "__":
            raise RewriteError(line, f"cannot read this ext_vector_type attribute: {_HOW}")
        end += 2
    open_pair = _skip_space_back(code, start, floor)
    before_pair = _skip_space_back(code, open_pair - 2, floor)
    attribute_start = before_pair - len("__attribute__")
    if (open_pair < 2 or code[open_pair - 2:open_pair] != "((" or attribute_start < 0
            or code[attribute_start:before_pair] != "__attribute__"
            or (attribute_start > 0 and _is_word_char(code[attribute_start - 1]))):
        raise RewriteError(line, f"ext_vector_type must be written as its own attribute: {_HOW}")
    paren = _skip_space(code, end, ceiling)
    if paren >= ceiling or code[paren] != "(":
        raise RewriteError(line, f"cannot read this ext_vector_type attribute: {_HOW}")
    depth, k = 0, paren
    while k < ceiling:
        depth += code[k] == "("
        depth -= code[k] == ")"
        if depth == 0:
            break
        k += 1
    count = code[paren + 1:k].strip()
    close = _skip_space(code, k + 1, ceiling)
    if k >= ceiling or not count or code[close:close + 1] != ")":
        raise RewriteError(line, f"cannot read this ext_vector_type attribute (one attribute, one count): {_HOW}")
    close = _skip_space(code, close + 1, ceiling)
    if code[close:close + 1] != ")":
        raise RewriteError(line, f"cannot read this ext_vector_type attribute (one attribute, one count): {_HOW}")
    return attribute_start, close + 1, count


def _keyword_before(code: str, pos: int, floor: int) -> tuple[int, str]:
    """The last whole word `typedef` or `using` in code[floor:pos]: (where, which), or (-1, "")."""
    best, which = -1, ""
    for word in ("typedef", "using"):
        k = pos
        while True:
            k = code.rfind(word, floor, k)
            if k < 0:
                break
            after = k + len(word)
            if (k == 0 or not _is_word_char(code[k - 1])) and (after >= len(code) or not _is_word_char(code[after])):
                if k > best:
                    best, which = k, word
                break
    return best, which


def _type_words(words: list[str]) -> bool:
    return bool(words) and all(_WORD.fullmatch(w) for w in words)


def _alias(declaration: str, keyword: str, count: str, line: int) -> str:
    """`declaration` (the statement from its keyword to before its `;`, the attribute cut out, on one
    line) as a g++ vector alias."""
    words = declaration.split()
    if keyword == "typedef" and len(words) >= 3 and _type_words(words[1:-1]) and _WORD.fullmatch(words[-1]):
        element, name = " ".join(words[1:-1]), words[-1]
        return f"typedef {element} {name} __attribute__((vector_size(({count}) * sizeof({element}))))"
    if keyword == "using" and len(words) >= 4 and words[2] == "=" and _type_words(words[3:]):
        element, name = " ".join(words[3:]), words[1]
        return f"using {name} = {element} __attribute__((vector_size(({count}) * sizeof({element}))))"
    raise RewriteError(line, f"cannot rewrite this ext_vector_type declaration: {_HOW}")


def rewrite_vector_types(text: str, budget: ParseBudget | None = None) -> str:
    if _NAME not in text:
        return text
    budget = budget or ParseBudget(cpu_s=float("inf"))
    code = blank_non_code(text, budget)
    lines = Lines(text)
    budget.charge(len(code))
    # Where statements end (or a block opens or closes): each typedef is read between two of these.
    ends = [k for k, ch in enumerate(code) if ch in ";{}"]
    budget.charge(len(code))
    pieces: list[str] = []
    done = 0
    pos = code.find(_NAME)
    while pos >= 0:
        line = lines.of(pos)
        budget.charge(2 * MAX_ALIAS_CHARS, line)
        if not _is_attribute_name(code, pos):
            pos = code.find(_NAME, pos + len(_NAME))  # part of a longer name
            continue
        attribute_start, attribute_end, count = _attribute_span(code, pos, line)
        at = bisect.bisect_left(ends, pos)
        statement_end = ends[at] if at < len(ends) else -1
        statement_start = ends[at - 1] + 1 if at > 0 else 0
        if statement_end < 0 or code[statement_end] != ";" or statement_end - attribute_end > MAX_ALIAS_CHARS:
            raise RewriteError(line, f"cannot find the `;` ending this ext_vector_type declaration: {_HOW}")
        keyword_at, keyword = _keyword_before(code, attribute_start, max(statement_start, done,
                                                                         attribute_start - MAX_ALIAS_CHARS))
        if keyword_at < 0:
            raise RewriteError(line, "ext_vector_type is modelled in a typedef or alias only (Clang allows it "
                                     f"nowhere else): {_HOW}")
        if code.find(_NAME, attribute_end, statement_end) >= 0:
            raise RewriteError(line, f"one ext_vector_type per declaration: {_HOW}")
        declaration = code[keyword_at:attribute_start] + " " + code[attribute_end:statement_end]
        pieces.append(text[done:keyword_at])
        pieces.append(_alias(declaration, keyword, " ".join(count.split()), line))
        pieces.append(line_breaks(code[keyword_at:statement_end]))
        done = statement_end
        pos = code.find(_NAME, statement_end)
    pieces.append(text[done:])
    return "".join(pieces)

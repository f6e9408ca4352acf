"""Turn HIP/CUDA source into C++ that g++ compiles against the emulator's headers.

Three rewrites, each keeping every line where it was (g++'s errors name the user's lines):

- `kernel<<<grid, block[, shmem[, stream]]>>>(args)` becomes `::hjemu::launch_named(
  HJEMU_KERNEL_NAME(kernel), HJEMU_KERNEL_BODY(kernel), grid, block, ...)(args)`: the argument
  list is left untouched, the configuration is copied verbatim (C++ itself splits it), and the
  name is stringized by a macro, so a launch inside the user's own macro names the real kernel;
- `extern __shared__ T name[];` becomes a per-host-thread reference to the dynamic shared memory;
- after every other `__shared__` declaration, `static_assert`s that each variable, and the ones
  declared directly in the same function body together, fit in 64 KiB.

Comments, string and character literals (raw strings included) are never rewritten. What cannot
be rewritten is reported as a `RewriteError` whose text is a compile error sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.emulator.vectors import rewrite_vector_types

_IDENT = re.compile(r"[A-Za-z_]\w*")
_RAW_PREFIX = re.compile(r"(?:u8|[uUL])?R$")
_ALIGNMENT = re.compile(r"\b(?:__align__|alignas)\s*\((?:[^()]|\([^()]*\))*\)"
                        r"|\b__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")
_DYNAMIC_DECL = re.compile(r"^(?P<type>.*?)\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\](?P<rest>(?:\s*\[[^\]]*\])*)\s*$",
                           re.DOTALL)
_CLOSERS = {")": "(", "]": "[", "}": "{"}


@dataclass
class RewriteError(ValueError):
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def blank_non_code(text: str) -> str:
    """The text with comments and literal contents replaced by spaces (newlines and line-continuing
    backslashes kept), so every position still means the same place in the original."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
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
            open_paren = text.find("(", i)
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
    """`fooR"` is an identifier ending in R followed by a string, not a raw string."""
    start = quote - 1
    while start >= 0 and (text[start].isalnum() or text[start] == "_"):
        start -= 1
    return _RAW_PREFIX.fullmatch(text[start + 1:quote]) is None


def _is_digit_separator(text: str, i: int) -> bool:
    start = i - 1
    while start >= 0 and (text[start].isalnum() or text[start] in "_.'"):
        start -= 1
    return start + 1 < i and text[start + 1].isdigit()


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _line_breaks(code: str) -> str:
    """Only the line breaks of `code` (with their continuation backslashes, inside a macro)."""
    return "".join("\\\n" if code[k - 1:k] == "\\" else "\n" for k, ch in enumerate(code) if ch == "\n")


def _match_back(code: str, close: int, opener: str, closer: str) -> int:
    """Index of the `opener` matching code[close] == closer, or -1. Parenthesized groups are
    skipped whole, so `k<T, (N > 2)>` matches its angle brackets."""
    depth = 0
    k = close
    while k >= 0:
        if code[k] == closer:
            depth += 1
        elif code[k] == opener:
            depth -= 1
            if depth == 0:
                return k
        elif code[k] == ")" and opener != "(":
            k = _match_back(code, k, "(", ")")
            if k < 0:
                return -1
        k -= 1
    return -1


def _skip_space_back(code: str, pos: int) -> int:
    """Back over whitespace and line continuations (a launch may be split inside a macro)."""
    while pos > 0 and (code[pos - 1].isspace() or (code[pos - 1] == "\\" and code[pos:pos + 1] == "\n")):
        pos -= 1
    return pos


def _callee_start(code: str, end: int) -> int:
    """Start of the kernel expression that ends at `end`: a (qualified, templated) name or a
    parenthesized expression."""
    pos = end
    if pos > 0 and code[pos - 1] == ")":
        return _match_back(code, pos - 1, "(", ")")
    if pos > 0 and code[pos - 1] == ">":
        opening = _match_back(code, pos - 1, "<", ">")
        if opening < 0:
            return -1
        pos = _skip_space_back(code, opening)
    while True:
        start = pos
        while start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
            start -= 1
        if start == pos or code[start].isdigit():
            return -1
        before = _skip_space_back(code, start)
        if code[before - 2:before] != "::":
            return start
        pos = _skip_space_back(code, before - 2)
        if pos == 0 or not (code[pos - 1].isalnum() or code[pos - 1] == "_"):
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


def _rewrite_launches(text: str) -> str:
    code = blank_non_code(text)
    pieces: list[str] = []
    done = 0
    for match in re.finditer(r"<<<", code):
        lt = match.start()
        if lt < done:
            continue
        end = _skip_space_back(code, lt)
        if code[max(0, end - 8):end] == "operator":
            continue
        line = _line_of(text, lt)
        start = _callee_start(code, end)
        if start < 0 or start < done:
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


def _in_directive(code: str, pos: int) -> bool:
    """Whether `pos` is inside a preprocessor directive (continued lines included)."""
    start = code.rfind("\n", 0, pos) + 1
    while start >= 2 and code[start - 2] == "\\":
        start = code.rfind("\n", 0, start - 1) + 1
    return code[start:pos].lstrip().startswith("#")


def _declaration_end(code: str, start: int) -> int:
    depth = 0
    for k in range(start, len(code)):
        depth += code[k] in "([{"
        depth -= code[k] in ")]}"
        if code[k] == ";" and depth == 0:
            return k
        if depth < 0:
            return -1
    return -1


def _enclosing_block(code: str, pos: int) -> int:
    """Where the innermost `{...}` around `pos` opens; -1 at namespace scope (a namespace or
    extern "C" block counts as namespace scope)."""
    opened: list[int] = []
    for k in range(pos):
        if code[k] == "{":
            opened.append(k)
        elif code[k] == "}" and opened:
            opened.pop()
    if not opened or re.search(r'(\bnamespace\s*[\w:]*|\bextern\s*"\s*")\s*$', code[:opened[-1]]):
        return -1
    return opened[-1]


def _size_checks(names: list[str], together: list[str]) -> str:
    """static_asserts that each variable, and all of a function's shared variables together,
    fit the 64 KiB of shared memory a block has."""
    checks = [f' static_assert(sizeof({name}) <= HJEMU_SHARED_BYTES, "hjemu: __shared__ {name} takes more '
              f'than the 64 KiB of shared memory a block has");' for name in names]
    if len(together) > 1:
        total = " + ".join(f"sizeof({name})" for name in together)
        checks.append(f' static_assert({total} <= HJEMU_SHARED_BYTES, "hjemu: the __shared__ variables '
                      f'{", ".join(together)} take more than the 64 KiB of shared memory a block has");')
    return "".join(checks)


def _rewrite_shared(text: str) -> str:
    code = blank_non_code(text)
    pieces: list[str] = []
    in_block: dict[int, list[str]] = {}  # static shared variables declared directly in a block
    done = 0
    for match in re.finditer(r"\b__shared__\b", code):
        if match.start() < done:
            continue
        line = _line_of(text, match.start())
        extern = re.search(r"\bextern\s+$", code[:match.start()])
        if _in_directive(code, match.start()):
            if extern:
                raise RewriteError(line, "cannot rewrite `extern __shared__` inside a macro: declare it "
                                         "directly as `extern __shared__ T name[];`")
            continue
        semicolon = _declaration_end(code, match.end())
        if semicolon < 0:
            raise RewriteError(line, "cannot find the end (`;`) of this `__shared__` declaration")
        if extern:
            declaration = _ALIGNMENT.sub(" ", code[match.end():semicolon])
            parsed = _DYNAMIC_DECL.match(declaration)
            if parsed is None or "," in declaration:
                raise RewriteError(line, "cannot rewrite this dynamic shared memory declaration: write it "
                                         "as `extern __shared__ T name[];`")
            type_text = " ".join(parsed["type"].split())
            rest = " ".join(parsed["rest"].split())
            pieces.append(text[done:extern.start()])
            pieces.append(f"static thread_local {type_text} (&{parsed['name']})[]{rest} = "
                          f"*reinterpret_cast<{type_text} (*)[]{rest}>(::hjemu_dynamic_shared());")
            pieces.append(_line_breaks(code[extern.start():semicolon]))
        else:
            pieces.append(_without_static(text, code, done, match.start(), match.end(), semicolon + 1))
            names = _declared_names(code[match.end():semicolon])
            block = _enclosing_block(code, match.start())
            together = in_block.setdefault(block, []) if block >= 0 else []
            together += names
            pieces.append(_size_checks(names, together))
        done = semicolon + 1
    pieces.append(text[done:])
    return "".join(pieces)


def _without_static(text: str, code: str, start: int, shared: int, shared_end: int, end: int) -> str:
    """text[start:end] with a `static` just before or after `__shared__` blanked: `__shared__`
    already means `static thread_local`, and nvcc accepts `static __shared__`."""
    chars = list(text[start:end])
    before = re.search(r"\bstatic\s+$", code[start:shared])
    after = re.match(r"\s*static\b", code[shared_end:end])
    spans = [(before.start(), before.start() + 6)] if before else []
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
        if idents and re.fullmatch(r"\s*[\w:<>,\s*&]*", head):
            names.append(idents[-1])
    return names


def rewrite_source(text: str, filename: str | None = None) -> str:
    """The source g++ compiles; with `filename`, a #line directive makes g++ name that file."""
    rewritten = _rewrite_shared(_rewrite_launches(rewrite_vector_types(text)))
    if filename is None:
        return rewritten
    return f'#line 1 "{filename}"\n{rewritten}'

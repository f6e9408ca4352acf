"""Clang's `__attribute__((ext_vector_type(N)))` (MFMA kernels declare their operand and
accumulator registers with it) as g++'s `__attribute__((vector_size(N * sizeof(T))))`.

g++ ignores ext_vector_type with a warning, leaving a scalar where the kernel means 16 floats, so a
typedef or alias that uses it is rewritten in place (on its own line: line numbers do not move):

    typedef float floatx16 __attribute__((ext_vector_type(16)));
    typedef __attribute__((ext_vector_type(4))) _Float16 half4;
    using bf16x4 = short __attribute__((ext_vector_type(4)));

Element access is by subscript (`acc[i]`) as with g++ vectors; Clang's `.x`/`.xy` swizzles are not
available. An ext_vector_type anywhere else is left for g++ to report.
"""

from __future__ import annotations

import re

_ATTR = r"__attribute__\s*\(\(\s*(?:__)?ext_vector_type(?:__)?\s*\(\s*(?P<n>[^()]+?)\s*\)\s*\)\)"
# At most four qualifiers: a bounded prefix keeps a hostile run of them from costing quadratic time.
_TYPE = r"(?P<type>(?:const\s+|unsigned\s+|signed\s+|long\s+|short\s+){0,4}[A-Za-z_][\w:]*)"
_TYPEDEF_AFTER = re.compile(rf"\btypedef\s+{_TYPE}\s+(?P<name>[A-Za-z_]\w*)\s*{_ATTR}")
_TYPEDEF_BEFORE = re.compile(rf"\btypedef\s+{_ATTR}\s+{_TYPE}\s+(?P<name>[A-Za-z_]\w*)")
_USING_AFTER = re.compile(rf"\busing\s+(?P<name>[A-Za-z_]\w*)\s*=\s*{_TYPE}\s+{_ATTR}")
_USING_BEFORE = re.compile(rf"\busing\s+(?P<name>[A-Za-z_]\w*)\s*=\s*{_ATTR}\s+{_TYPE}")


def _vector_size(match: re.Match[str]) -> str:
    return f"__attribute__((vector_size(({match['n']}) * sizeof({match['type']}))))"


def rewrite_vector_types(text: str) -> str:
    def typedef_after(m: re.Match[str]) -> str:
        return f"typedef {m['type']} {m['name']} {_vector_size(m)}"

    def typedef_before(m: re.Match[str]) -> str:
        return f"typedef {m['type']} {m['name']} {_vector_size(m)}"

    def using(m: re.Match[str]) -> str:
        return f"using {m['name']} = {m['type']} {_vector_size(m)}"

    if "ext_vector_type" not in text:
        return text
    text = _TYPEDEF_AFTER.sub(typedef_after, text)
    text = _TYPEDEF_BEFORE.sub(typedef_before, text)
    text = _USING_AFTER.sub(using, text)
    return _USING_BEFORE.sub(using, text)

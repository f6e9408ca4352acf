"""What a compiled solution imports: the undefined symbols of its dynamic symbol table, read by the
parent from the ELF file with every offset bounded, and checked against the problem's forbidden
rules and the loader's functions (and, from the same table, that it defines `solution`).

Why the library and not only the source: the source rules are regular expressions, so token pasting
(`#define J(a,b) a##b` … `J(hip,StreamCreate)`), split strings (`dlopen("libroc" "blas.so")`) or a
library already mapped in the process (NumPy's OpenBLAS: `scipy_cblas_sgemm`) pass them
unseen. Whatever the source looks like, a call into another library is an import
in the compiled file, by its real name. A solution that finds code at run time without any import
(walking the loader's lists by hand) is still possible; the judge's parent measures and checks
every call itself, so that only bends the problem's rules, never its times or its verdicts.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

# The dynamic loader's entry points: a solution has no business loading or looking up code at run
# time (that is how every library rule would be bypassed).
LOADER_SYMBOLS = frozenset({"dlopen", "dlmopen", "dlsym", "dlvsym", "__libc_dlopen_mode", "__libc_dlsym"})
MAX_SYMBOLS = 200_000
MAX_NAME = 4096
_SHT_DYNSYM = 11
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym


class NotAnElfLibrary(ValueError):
    """The file is not a 64-bit little-endian ELF file the parent can read."""


def imported_symbols(path: Path) -> list[str]:
    """The names of the undefined dynamic symbols of the ELF file at `path`, in table order."""
    return [name for name, defined in dynamic_symbols(path) if not defined]


def dynamic_symbols(path: Path) -> list[tuple[str, bool]]:
    """(name, defined here) of each named dynamic symbol of the ELF file at `path`, in table order."""
    with open(path, "rb") as handle:
        size = handle.seek(0, 2)
        if size < 64:
            raise NotAnElfLibrary("shorter than an ELF header")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _symbols(data, size)


def _symbols(data: mmap.mmap, size: int) -> list[tuple[str, bool]]:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise NotAnElfLibrary("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    if shentsize != _SECTION.size or shoff + shnum * shentsize > size:
        raise NotAnElfLibrary("its section headers lie outside the file")
    sections = [_SECTION.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    dynsym = next((s for s in sections if s[1] == _SHT_DYNSYM), None)
    if dynsym is None:
        return []  # a library with no dynamic symbols imports (and exports) nothing
    _, _, _, _, offset, length, link, _, _, entsize = dynsym
    if entsize != _SYMBOL.size or link >= len(sections) or offset + length > size:
        raise NotAnElfLibrary("its dynamic symbol table lies outside the file")
    strings_offset, strings_length = sections[link][4], sections[link][5]
    if strings_offset + strings_length > size:
        raise NotAnElfLibrary("its dynamic string table lies outside the file")
    symbols = []
    for index in range(min(length // entsize, MAX_SYMBOLS)):
        name, _, _, section, _, _ = _SYMBOL.unpack_from(data, offset + index * entsize)
        if name == 0 or name >= strings_length:  # the null symbol, or no name
            continue
        start = strings_offset + name
        end = data.find(b"\0", start, min(start + MAX_NAME, strings_offset + strings_length))
        if end < 0:
            raise NotAnElfLibrary("a symbol name runs past its string table")
        symbols.append((data[start:end].decode("ascii", "replace"), section != 0))  # section 0: undefined
    return symbols

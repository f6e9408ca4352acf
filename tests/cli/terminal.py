"""A terminal for the CLI's tests: stdout that says it is one, and what the screen shows after the
escape sequences the CLI writes (cursor up, clear line, carriage return)."""

from __future__ import annotations

import io
import re

CURSOR = re.compile(r"\x1b\[(\d*)([AK])|\x1b\[2K|\r|\n|[^\x1b\r\n]+")


def screen(text: str) -> list[str]:
    """What a terminal shows after `text`: the lines of the screen, cursor moves and line clears applied."""
    rows, row, col = [""], 0, 0
    for match in CURSOR.finditer(text):
        token = match.group(0)
        if token == "\n":
            row, col = row + 1, 0
        elif token == "\r":
            col = 0
        elif match.group(2) == "A":
            row = max(0, row - int(match.group(1) or 1))
        elif match.group(2) == "K" or token == "\x1b[2K":
            rows[row] = ""
        else:
            while len(rows) <= row:
                rows.append("")
            rows[row] = rows[row][:col].ljust(col) + token + rows[row][col + len(token):]
            col += len(token)
        while len(rows) <= row:
            rows.append("")
    return [line.rstrip() for line in rows]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True

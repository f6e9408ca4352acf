"""`--watch` on a terminal, as the screen shows it: the live block is redrawn in place while the
submission runs, and the verdict printed under it stays the last thing on screen (it used to be
overwritten by one more redraw of the block, which then said "BENCHMARKING 2.3 s")."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import pytest

from cli.api import ApiError
from cli.output import Printer
from cli.watch import follow
from tests.support.fake_agent import accepted_script

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


class ScriptedServer:
    """The fake agent's accepted run as the platform streams it."""

    def __init__(self, script: list[tuple[str, dict[str, Any]]]) -> None:
        self.events_sent = [(seq, {"seq": seq, "type": kind, "payload": payload})
                            for seq, (kind, payload) in enumerate(script, start=1)]

    def events(self, submission_id: str, after: int = 0) -> Iterator[dict[str, Any]]:
        yield from (event for seq, event in self.events_sent if seq > after)

    def call(self, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
        raise ApiError(404, "not here")  # the speed of light after the result: best effort, left out


@pytest.mark.parametrize("live", [True, False], ids=["watch", "wait"])
def test_the_verdict_is_the_last_thing_on_screen(live: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert follow(ScriptedServer(accepted_script()), Printer(), "s-1", "benchmark", live=live) == 0
    shown = [line for line in screen(terminal.getvalue()) if line]
    assert shown[-2:] == ["ACCEPTED: all 1 tests passed", "score: 1.5000 ms"], shown
    if live:  # the block, in its final state, above the verdict
        assert shown[0].startswith("BENCHMARKING ")
        assert "  bench    1 of 1 cases; n=2^20: mean 1.5000 ms over 10 runs" in shown

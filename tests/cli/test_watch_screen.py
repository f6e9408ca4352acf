"""`--watch` on a terminal, as the screen shows it: the live block is redrawn in place while the
submission runs, and the verdict printed under it stays the last thing on screen (it used to be
overwritten by one more redraw of the block, which then said "BENCHMARKING 2.3 s")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cli.api import ApiError
from cli.output import Printer
from cli.watch import follow
from tests.cli.terminal import Terminal, screen
from tests.support.fake_agent import accepted_script


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

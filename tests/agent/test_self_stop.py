"""An agent that hears from no platform stops itself and says so (issue 32: agents outlived their
stopped workers, idle on paid VMs, billed to the last users)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent.self_stop import SilenceWatch
from tests.agent.test_served_agent import ServedAgent
from tests.agent.test_server import call


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_watch_stops_once_after_the_limit_of_silence_and_a_request_starts_it_again(
        capsys: pytest.CaptureFixture[str]) -> None:
    clock, stops = Clock(), []
    watch = SilenceWatch(60, lambda: stops.append(clock.now), clock=clock)
    clock.now += 59
    assert not watch.check()
    watch.enter()  # the platform asks something, and waits for the answer (a long poll)
    clock.now += 120
    assert not watch.check()
    watch.leave()
    clock.now += 59
    assert not watch.check()
    assert not stops
    clock.now += 2
    assert watch.check()
    assert watch.check()
    assert stops == [340.0]  # stopped once
    assert "no request from the platform for 61 s (limit 60 s" in capsys.readouterr().err


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_a_served_agent_stays_while_it_hears_from_the_platform_and_stops_itself_after(tmp_path: Path) -> None:
    agent = ServedAgent(tmp_path, "--stop-after-silence", "2", "--insecure-no-sandbox")
    try:
        base = agent.wait_listening()
        for _ in range(8):  # four seconds of requests, twice the limit: it stays
            assert call(base, "GET", "/v1/health")[0] == 200
            time.sleep(0.5)
        assert agent.process.poll() is None
        agent.process.wait(timeout=60)  # then silence
        assert agent.process.returncode == 0
        said = agent.stderr()
        assert "no request from the platform for" in said
        assert "stopping itself" in said
        assert "agent stopped" in said
    finally:
        agent.stop()

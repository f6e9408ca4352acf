"""tests/support/stop_when_unused.py: a session fixture's server stops right after the last test of the
process that uses it, and lives to the end where this process does not run them all."""

from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # each test runs whole pytest sessions, plugins loaded, two or three times

CONFTEST = """
import pytest
from tests.support.stop_when_unused import StopWhenUnused

SERVERS = StopWhenUnused("server")
EVENTS = []

def pytest_configure(config):
    config.pluginmanager.register(SERVERS, "stop-when-unused")

def pytest_runtest_logstart(nodeid, location):
    EVENTS.append("run " + nodeid.split("::")[-1])

def pytest_unconfigure(config):
    print("EVENTS: " + ", ".join(EVENTS))

@pytest.fixture(scope="session")
def server():
    SERVERS.started("server", lambda: EVENTS.append("stopped"))
    yield "up"
    EVENTS.append("session teardown")
"""

TESTS = """
import os
def test_first(server): pass
def test_unrelated(): assert not os.environ.get("FAIL_UNRELATED")
def test_last(server): pass
def test_after(): pass
"""


def events(pytester: pytest.Pytester, *args: str) -> str:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_servers=textwrap.dedent(TESTS))
    result = pytester.runpytest_inprocess("-p", "no:django", "-p", "no:xdist", "-p", "no:cacheprovider", "-s", *args)
    return next(line for line in result.outlines if line.startswith("EVENTS: "))


def test_the_server_stops_after_its_last_user_not_at_the_end(pytester: pytest.Pytester) -> None:
    assert events(pytester) == ("EVENTS: run test_first, run test_unrelated, run test_last, stopped, run test_after, "
                                "session teardown")
    # Deselected tests are not users: the server stops after the one that is left.
    assert events(pytester, "-k", "first or after") == ("EVENTS: run test_first, stopped, run test_after, "
                                                         "session teardown")


def test_the_server_lives_to_the_end_while_a_user_has_not_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    # As in a pytest-xdist worker that is not sent every user: test_last is collected and never runs.
    monkeypatch.setenv("FAIL_UNRELATED", "1")
    assert events(pytester, "-x") == "EVENTS: run test_first, run test_unrelated, session teardown"

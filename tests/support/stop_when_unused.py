"""Stops a session fixture's server after the last test of this process that uses it, instead of at
the end of the session: a local dstack server's background loops keep part of a core busy while
idle, and make test's SQLite pass runs its dstack tests in its first minutes, then minutes of others.

Safe under any distribution: a server stops only once every collected test that uses its fixture has
run in this process. Under pytest-xdist's loadgroup those tests are one group, sent whole to one worker
(tests/conftest.py); where they are spread over workers, none sees them all and each server lives to
the end of the session, as without this plugin. The fixture's own teardown still stops it (again).
"""

from __future__ import annotations

from collections.abc import Callable, Generator

import pytest


class StopWhenUnused:
    def __init__(self, *fixtures: str) -> None:
        self._users: dict[str, set[int]] = {name: set() for name in fixtures}
        self._stops: dict[str, Callable[[], None]] = {}

    def started(self, fixture: str, stop: Callable[[], None]) -> None:
        """The fixture's server is up; `stop` ends it."""
        self._stops[fixture] = stop

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for name, users in self._users.items():
            users.clear()
            users.update(id(item) for item in session.items if name in getattr(item, "fixturenames", ()))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, object, object]:
        result = yield
        for name, users in self._users.items():
            users.discard(id(item))
            if not users and name in self._stops:
                self._stops.pop(name)()
        return result

"""The tests' local dstack server: only a missing `dstack` may skip its tests; a server that does not
come up is an error, and the tests that wait for one may wait longer than the usual time limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fleets.dstack import local_server
from tests.fleets.dstack.local_server import (
    STARTUP_TIMEOUT_S,
    DstackNotInstalled,
    DstackUnavailable,
    LocalDstack,
    start_local_dstack,
)


def test_without_the_executable_the_server_is_not_installed(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setattr(local_server, "dstack_executable", lambda: None)
    with pytest.raises(DstackNotInstalled):
        start_local_dstack(tmp_path)


def test_a_server_that_never_answers_is_unavailable_not_missing(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    silent = tmp_path / "dstack"
    silent.write_text("#!/bin/sh\necho 'starting, slowly'\nexec sleep 60\n")
    silent.chmod(0o755)
    monkeypatch.setattr(local_server, "dstack_executable", lambda: str(silent))
    with pytest.raises(DstackUnavailable, match="not ready after 1 s") as excinfo:
        start_local_dstack(tmp_path / "server", startup_timeout_s=1.0, template=tmp_path / "template")
    assert not isinstance(excinfo.value, DstackNotInstalled)  # so the fixture errors instead of skipping
    assert "starting, slowly" in str(excinfo.value)  # the server's log comes with it
    assert not (tmp_path / "template" / "token").exists()  # no template from a server that never started


def test_a_test_that_starts_the_server_may_wait_for_it(request: pytest.FixtureRequest,
                                                       dstack_server: LocalDstack) -> None:
    marker = request.node.get_closest_marker("timeout")
    assert marker is not None
    assert marker.args[0] > 2 * STARTUP_TIMEOUT_S

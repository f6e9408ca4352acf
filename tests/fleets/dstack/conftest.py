"""Fixtures for the dstack layer: real local dstack servers (started once per session, lazily),
clients, unique fleet settings, and a small agent package to ship with `files:`.

Two servers: `dstack_server` processes runs for real (a VM run fails with no capacity after a few
seconds), `dstack_server_frozen` has background processing disabled (a run stays `submitted`).
When a server cannot be started here, every test that needs it is skipped with the reason.

Nothing here touches Django or its database: these tests run with and without pytest-django.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fleets.dstack import DstackClient, FleetSettings, VmRunSettings
from tests.fleets.dstack.local_server import DstackUnavailable, LocalDstack, start_local_dstack

PINNED_IMAGE = "rocm/dev-ubuntu-22.04:6.2.4@sha256:" + "0123456789abcdef" * 4


def _serve(tmp_path_factory: pytest.TempPathFactory, *, background: bool) -> Iterator[LocalDstack]:
    base = tmp_path_factory.mktemp("dstack-frozen" if not background else "dstack")
    try:
        server = start_local_dstack(base, background_processing=background)
    except DstackUnavailable as e:
        pytest.skip(f"local dstack server unavailable: {e}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def dstack_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDstack]:
    yield from _serve(tmp_path_factory, background=True)


@pytest.fixture(scope="session")
def dstack_server_frozen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDstack]:
    yield from _serve(tmp_path_factory, background=False)


@pytest.fixture
def dstack(dstack_server: LocalDstack) -> DstackClient:
    return dstack_server.client()


@pytest.fixture
def dstack_frozen(dstack_server_frozen: LocalDstack) -> DstackClient:
    return dstack_server_frozen.client()


@pytest.fixture
def make_fleet_settings() -> Callable[..., FleetSettings]:
    """Fleet settings with a name no other test uses (the servers live for the whole session)."""

    def make(**overrides: Any) -> FleetSettings:
        values: dict[str, Any] = {"name": f"hj-t-{uuid.uuid4().hex[:8]}"}
        values.update(overrides)
        return FleetSettings(**values)

    return make


@pytest.fixture(scope="session")
def agent_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny stand-in for the agent package (the real one is shipped the same way)."""
    root = tmp_path_factory.mktemp("agent-pkg") / "agent"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "__main__.py").write_text("print('agent')\n")
    return root


@pytest.fixture
def make_vm_settings(agent_dir: Path) -> Callable[..., VmRunSettings]:
    def make(fleet: FleetSettings, **overrides: Any) -> VmRunSettings:
        values: dict[str, Any] = {
            "fleet": fleet,
            "vm_id": str(uuid.uuid4()),
            "image": PINNED_IMAGE,
            "agent_dir": agent_dir,
            "agent_token": "agent-" + uuid.uuid4().hex,
        }
        values.update(overrides)
        return VmRunSettings(**values)

    return make

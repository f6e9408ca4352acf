"""Fixtures for the dstack layer: clients of the real local dstack servers (tests/fleets/conftest.py
starts them once per session, lazily, for these tests and the Django-integrated ones), unique
fleet settings, and a small agent package to ship with `files:`.

Nothing here touches Django or its database: these tests run with and without pytest-django.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fleets.dstack import DstackClient, FleetSettings, VmRunSettings
from tests.fleets.dstack.local_server import LocalDstack

PINNED_IMAGE = "rocm/dev-ubuntu-22.04:6.2.4@sha256:" + "0123456789abcdef" * 4


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

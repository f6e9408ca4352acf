"""Fixtures shared by the fleets tests: the real local dstack servers (one of each per session, started
lazily: the dstack layer's tests and the Django-integrated ones share them), and Django settings
pointing at one of them.

Two servers: `dstack_server` processes runs for real (a VM run fails with no capacity after
10-20 s), `dstack_server_frozen` has background processing disabled (a run stays `submitted`).
Without the `dstack` executable every test that needs a server is skipped; with it (make setup
installs it), a server that does not start is an error of every test that needs it, with its log.
Django is imported inside fixtures only: the dstack layer's tests never touch it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fleets.backends import Orphan, Provisioned, ProvisionError
from fleets.models import VMInstance
from tests.fleets.dstack.local_server import STARTUP_TIMEOUT_S, DstackNotInstalled, LocalDstack, start_local_dstack
from tests.support.stop_when_unused import StopWhenUnused

# A pinned image the local server accepts without a registry (runs never start here anyway).
TEST_IMAGE = "rocm/dev-ubuntu-22.04:6.2.4@sha256:" + "0123456789abcdef" * 4
SERVERS = StopWhenUnused("dstack_server", "dstack_server_frozen")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SERVERS, "dstack-servers-stop-when-unused")


def pytest_itemcollected(item: pytest.Item) -> None:
    # The test that starts a server waits for it (up to STARTUP_TIMEOUT_S) within its own time limit,
    # and so does one that waits for the other server to save the template (start_local_dstack).
    if {"dstack_server", "dstack_server_frozen"} & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.timeout(2 * STARTUP_TIMEOUT_S + 300))


def _serve(tmp_path_factory: pytest.TempPathFactory, fixture: str, *, background: bool) -> Iterator[LocalDstack]:
    base = tmp_path_factory.mktemp("dstack-frozen" if not background else "dstack")
    # The session's folder, which pytest-xdist's workers share (each has a folder of its own in it).
    session = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        session = session.parent
    try:
        server = start_local_dstack(base, background_processing=background, template=session / "dstack-template")
    except DstackNotInstalled as e:
        pytest.skip(f"local dstack server unavailable: {e}")
    SERVERS.started(fixture, server.stop)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def dstack_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDstack]:
    yield from _serve(tmp_path_factory, "dstack_server", background=True)


@pytest.fixture(scope="session")
def dstack_server_frozen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDstack]:
    yield from _serve(tmp_path_factory, "dstack_server_frozen", background=False)


def point_django_at(settings: Any, url: str, token: str, project: str = "main") -> None:
    settings.DSTACK_SERVER_URL, settings.DSTACK_TOKEN, settings.DSTACK_PROJECT = url, token, project
    settings.HIPJUDGE_DSTACK_IMAGE = TEST_IMAGE
    settings.HIPJUDGE_DSTACK_TIMEOUT = 20.0
    settings.HIPJUDGE_DSTACK_POLL = 0.5


@pytest.fixture
def on_dstack(settings: Any, dstack_server: LocalDstack) -> LocalDstack:
    """Django configured for the real local dstack server (background processing on)."""
    point_django_at(settings, dstack_server.url, dstack_server.token, dstack_server.project)
    return dstack_server


@pytest.fixture
def on_dstack_frozen(settings: Any, dstack_server_frozen: LocalDstack) -> LocalDstack:
    point_django_at(settings, dstack_server_frozen.url, dstack_server_frozen.token, dstack_server_frozen.project)
    return dstack_server_frozen


@pytest.fixture
def make_dstack_pool(db: Any) -> Callable[..., Any]:
    """A dstack pool with a name no other test uses (the servers live for the whole session)."""
    from fleets.dstack_pools.services import pool_dstack_ensure

    def make(**overrides: Any) -> Any:
        values: dict[str, Any] = {"name": f"hj-p-{uuid.uuid4().hex[:8]}", "backends": ["amddevcloud"]}
        values.update(overrides)
        pool, _ = pool_dstack_ensure(**values)
        return pool

    return make


@pytest.fixture
def credit(db: Any) -> Any:
    """An active credit grant: paid pools (every dstack pool) take work only with one."""
    from decimal import Decimal

    from billing.services import credit_grant_create

    return credit_grant_create(name="test grant", amount=Decimal("1400"))


class StandInBackend:
    """A backend that records what the services ask of it; `fail_with` makes provisioning fail."""

    kind = "local"

    def __init__(self) -> None:
        self.alive: set[str] = set()
        self.stopped: list[str] = []
        self.orphans: list[Orphan] = []
        self.killed: list[str] = []
        self.fail_with: str | None = None

    def provision(self, vm: VMInstance) -> Provisioned:
        if self.fail_with:
            raise ProvisionError(self.fail_with)
        self.alive.add(str(vm.pk))
        return Provisioned(base_url="http://127.0.0.1:1", pid=4242, handle="h", agent_info={"device": "host"})

    def is_alive(self, vm: VMInstance) -> bool:
        return str(vm.pk) in self.alive

    def gone_reason(self, vm: VMInstance) -> str:
        return "The agent process is gone."

    def stop(self, vm: VMInstance) -> None:
        self.alive.discard(str(vm.pk))
        self.stopped.append(str(vm.pk))

    def find_orphans(self, pool: Any, live_vm_ids: set[str]) -> list[Orphan]:
        return self.orphans

    def kill_orphan(self, pool: Any, orphan: Orphan) -> None:
        self.killed.append(orphan.handle)

    def agent_headers(self, vm: VMInstance) -> dict[str, str]:
        return {}


@pytest.fixture
def backend(monkeypatch: Any) -> StandInBackend:
    stand_in = StandInBackend()
    monkeypatch.setattr("fleets.services.get_backend", lambda kind: stand_in)
    return stand_in

"""Shared fixtures: personas (owner / other user / staff), API clients, problems and the local pool.

Everything that needs the database asks for it explicitly (pytest-django's `db`), so the agent's
and the dstack layer's tests, which never touch Django models, are unaffected.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "problems"


# Session fixtures that start something big. Under `pytest -n` (make test's SQLite pass, with
# --dist loadgroup) the tests that use one run in one worker, which starts it once, instead of each
# worker starting its own; so do the tests of a module with a module- or class-wide fixture (e.g. one
# that compiles every problem's sources).
SHARED_SESSION_FIXTURES = {"dstack_server": "dstack", "dstack_server_frozen": "dstack-frozen",
                           "browser": "browser", "emu_runtime": "emulator"}
# Fixtures that cost tens of seconds of CPU before their first test can run (a dstack server, the
# emulator's runtime, every problem's sources compiled): their users are marked `slow`, which
# `make test-quick` leaves out (make test runs them).
SLOW_FIXTURES = {"dstack_server", "dstack_server_frozen", "emu_runtime", "hip_builds", "cuda_builds"}


def xdist_group(item: pytest.Item) -> str | None:
    info = getattr(item, "_fixtureinfo", None)
    fixtures = info.name2fixturedefs if info is not None else {}
    shared = sorted(group for name, group in SHARED_SESSION_FIXTURES.items() if name in fixtures)
    if shared:
        return "+".join(shared)
    ours = [d for defs in fixtures.values() for d in defs if d.baseid.startswith("tests")]  # not plugins'
    if any(d.scope in ("package", "module", "class") for d in ours):
        return item.nodeid.split("::", 1)[0]
    return None


def uses_slow_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and not SLOW_FIXTURES.isdisjoint(info.name2fixturedefs)


def pytest_itemcollected(item: pytest.Item) -> None:
    # Marked as each item is collected, before pytest-xdist reads the marks (pytest_collection_modifyitems).
    # tests/test_xdist_groups.py checks that the groups form (pytest 9.2 broke them: pyproject.toml).
    group = xdist_group(item)
    if group:
        item.add_marker(pytest.mark.xdist_group(group))
    if uses_slow_fixture(item):
        item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def shared_agent_builds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for every agent's own builds (agent.config.BUILD_DIR_ENV) in this run, pytest-xdist's
    workers included: the emulator's runtime is compiled once, not by each of the run's dozens of agents
    (each a new workdir), which cost about a sixth of the suite's CPU."""
    from agent.config import BUILD_DIR_ENV

    if os.environ.get(BUILD_DIR_ENV):
        return Path(os.environ[BUILD_DIR_ENV])
    base = tmp_path_factory.getbasetemp()
    run_root = base.parent if base.name.startswith("popen-gw") else base  # pytest-xdist: the run's folder
    folder = run_root / "agent-builds"
    os.environ[BUILD_DIR_ENV] = str(folder)  # the agents this run starts inherit it
    return folder


@pytest.fixture(scope="session", autouse=True)
def agent_heap() -> None:
    """The tests that judge in this process do so with the heap settings of the agent's own process
    (agent.cli.main): without them the comparisons' arrays fault in fresh pages at every run."""
    from agent.heap import keep_freed_memory

    keep_freed_memory()


@pytest.fixture(autouse=True)
def fresh_submission_lookups() -> None:
    """Each test's pools and problems are new rows (the previous test's were rolled back without
    signals): nothing cached by an earlier test may be served to this one."""
    from submissions.lookups import lookups_clear

    lookups_clear()


@pytest.fixture
def queued_tasks(monkeypatch: Any) -> list[tuple]:
    """Every task handed to django-q2 (core.queue.enqueue) during the test, as (func, *args),
    instead of queueing it."""
    calls: list[tuple] = []
    monkeypatch.setattr("core.queue.async_task", lambda func, *args, **kwargs: calls.append((func, *args)))
    return calls


@pytest.fixture
def compiles(monkeypatch: Any) -> Any:
    """The SQL of every query Django compiles from a queryset during the test (core.prepared_query's
    tests and the hot requests' count them)."""
    from django.db.models.sql.compiler import SQLCompiler

    made: list[str] = []
    original = SQLCompiler.as_sql

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        sql, params = original(self, *args, **kwargs)
        made.append(sql)
        return sql, params

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    return made


@pytest.fixture
def make_user(db: Any) -> Callable[..., Any]:
    from django.contrib.auth import get_user_model

    def make(username: str, *, staff: bool = False, password: str = "correct horse battery") -> Any:
        return get_user_model().objects.create_user(username=username, password=password, is_staff=staff)

    return make


@pytest.fixture
def owner(make_user: Callable[..., Any]) -> Any:
    return make_user("owner")


@pytest.fixture
def other_user(make_user: Callable[..., Any]) -> Any:
    return make_user("other")


@pytest.fixture
def staff_user(make_user: Callable[..., Any]) -> Any:
    return make_user("staff", staff=True)


@pytest.fixture
def client_as(client: Any) -> Callable[[Any], Any]:
    """client_as(user) -> Django's test client logged in as the user (None: anonymous)."""

    def login(user: Any) -> Any:
        if user is not None:
            client.force_login(user)
        return client

    return login


@pytest.fixture
def api_as() -> Callable[[Any], Any]:
    """api_as(user) -> a DRF APIClient authenticated with the user's token (None: anonymous)."""
    from rest_framework.test import APIClient

    from accounts.tokens import token_create

    def client_for(user: Any) -> APIClient:
        client = APIClient()
        if user is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
        return client

    return client_for


@pytest.fixture
def paid_access(owner: Any, other_user: Any) -> None:
    """owner and other_user may submit to paid pools: each has a spend allowance with no cap."""
    from billing.models import UserSpendLimit

    for user in (owner, other_user):
        UserSpendLimit.objects.create(user=user, monthly_cap=None)


@pytest.fixture(scope="session")
def problem_bundles() -> list[Any]:
    """problems/ parsed and dry-run once per test session (it touches no database)."""
    from submissions.catalogue import catalogue_read

    bundles, errors = catalogue_read(root=PROBLEMS)
    assert not errors, errors
    return bundles


@pytest.fixture
def problems_loaded(db: Any, problem_bundles: list[Any]) -> None:
    """The catalogue's rows in this test's database."""
    from submissions.catalogue import problem_store

    for bundle in problem_bundles:
        problem_store(bundle)


@pytest.fixture
def problem_without_triton(problems_loaded: None, problem_bundles: list[Any]) -> str:
    """radix-sort stored without a Triton template and solution (it has none today; stripped here so
    that the tests keep a problem without Triton if it gets one): the slug of such a problem."""
    import dataclasses

    from submissions.catalogue import problem_store

    bundle = next(b for b in problem_bundles if b.slug == "radix-sort")
    problem_store(dataclasses.replace(bundle, templates={k: v for k, v in bundle.templates.items() if k != "triton"},
                                      baselines={k: v for k, v in bundle.baselines.items() if k != "triton"}))
    return bundle.slug


@pytest.fixture
def local_pool(db: Any) -> Any:
    from fleets.services import pool_ensure

    pool, _ = pool_ensure(name="local", backend="local", device="host", max_vms=2, idle_timeout_s=600)
    return pool


def finish(submission_id: Any, status: str, reason: str) -> None:
    """End a submission as a runner would (the row locked, with its RESULT event)."""
    from django.db import transaction

    from submissions.services import finish_locked, lock_submission

    with transaction.atomic():
        submission = lock_submission(submission_id)
        assert submission is not None
        finish_locked(submission, status=status, reason=reason)


def run_coroutine(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """asyncio.run in a thread of its own: the browser tests' session-wide Playwright keeps an event
    loop running in the main thread, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def read_source(name: str, problem: str = "vector-add") -> str:
    return (PROBLEMS / problem / "solutions" / name).read_text()


def django_process(code: str, argv: tuple[str, ...] = (), **env: str) -> subprocess.CompletedProcess[str]:
    """`code` run after django.setup() in a new Python process with only `env` beside the settings
    module (none of this process's variables), as `argv` would start it (e.g. manage.py qcluster)."""
    set_argv = f"sys.argv = {list(argv)!r}; " if argv else ""
    prelude = f"import sys; {set_argv}import django; django.setup(); "
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings",
                                           "HIPJUDGE_VAR_DIR": str(ROOT / "var"), **env})

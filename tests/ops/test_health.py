"""/healthz and /readyz: no auth, JSON, any host name, 503 naming the part that fails."""

from __future__ import annotations

import socket
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client

from core.heartbeat import heartbeat_beat
from fleets.models import Backend, Pool
from ops import readiness
from tests.support.clock import stepped_clock

# Checks run in threads with their own connections: the rows they read must be committed.
pytestmark = pytest.mark.django_db(transaction=True)
PROBE = {"HTTP_HOST": "10.0.0.5:8000"}  # a load balancer probes by address, not by the site's name


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(autouse=True)
def fresh_caches(settings: Any) -> None:
    readiness._redis.cache_clear()
    readiness._dstack._result = None
    readiness._dstack.configured = False
    # The longest deadline allowed: on a loaded machine a check that answers must not be cut off by
    # the clock (only the test of the deadline itself sets a short one).
    settings.HIPJUDGE_READY_TIMEOUT = 30


def ready() -> tuple[int, dict[str, Any]]:
    response = Client().get("/readyz", **PROBE)
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    return response.status_code, response.json()


def test_liveness_answers_any_host_without_touching_the_database(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        response = Client().get("/healthz", **PROBE)
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_ready_when_the_database_broker_and_a_worker_answer() -> None:
    heartbeat_beat(name="host:1")
    status, body = ready()
    assert status == 200
    assert body["status"] == "ok"
    assert body["failing"] == []
    assert set(body["checks"]) == {"database", "broker", "worker_heartbeat"}  # no dstack pool: no dstack check
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["worker_heartbeat"]["age_s"] >= 0


@pytest.mark.parametrize(("age", "words"), [(None, "no worker has reported yet"), (600, "600 s old")])
def test_not_ready_without_a_recent_worker_heartbeat(age: int | None, words: str) -> None:
    with stepped_clock() as clock:
        if age is not None:
            heartbeat_beat(name="host:1", now=clock.now - timedelta(seconds=age))
        status, body = ready()
    assert status == 503
    assert body["failing"] == ["worker_heartbeat"]
    assert words in body["checks"]["worker_heartbeat"]["error"]


def test_a_database_that_does_not_answer_is_named(monkeypatch: Any) -> None:
    def refused() -> dict:
        raise OperationalError("connection to server at 10.9.9.9 refused")

    monkeypatch.setitem(readiness.CHECKS, "database", refused)
    monkeypatch.setitem(readiness.CHECKS, "worker_heartbeat", refused)
    status, body = ready()
    assert status == 503
    assert body["failing"] == ["database", "worker_heartbeat"]
    assert body["checks"]["database"]["error"] == "OperationalError"  # never the message: it names hosts
    assert body["checks"]["worker_heartbeat"]["error"] == "not checked: the database does not answer"


def test_a_redis_broker_that_does_not_answer_is_named(settings: Any) -> None:
    heartbeat_beat(name="host:1")
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    status, body = ready()
    assert status == 503
    assert body["failing"] == ["broker"]
    assert body["checks"]["broker"]["error"] == "ConnectionError"


@pytest.mark.timeout(60)  # were the probe to wait for the hung check, it would hang until this
def test_a_check_that_hangs_fails_after_the_deadline(monkeypatch: Any, settings: Any) -> None:
    settings.HIPJUDGE_READY_TIMEOUT = 0.2
    heartbeat_beat(name="host:1")
    release, finished = threading.Event(), threading.Event()

    def hangs() -> dict[str, Any]:
        release.wait(timeout=50)
        finished.set()
        return {}

    monkeypatch.setitem(readiness.CHECKS, "broker", hangs)
    try:
        status, body = ready()
        assert not finished.is_set()  # the probe answered while the check still hung
    finally:
        release.set()
    assert status == 503
    assert body["checks"]["broker"]["error"] == "no answer within 0.2 s"


def test_a_database_outage_reports_only_the_parts_that_are_configured(monkeypatch: Any) -> None:
    """No dstack pool, the ORM broker: the outage is the database's (and the heartbeat it cannot
    read); dstack, whose pools cannot be read either, is not reported (a fault run saw it named)."""
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setitem(readiness.CHECKS, "database", refused)
    monkeypatch.setitem(readiness.CHECKS, "worker_heartbeat", refused)
    monkeypatch.setattr(readiness._dstack, "get", refused)
    status, body = ready()
    assert status == 503
    assert body["failing"] == ["database", "worker_heartbeat"]
    assert set(body["checks"]) == {"database", "broker", "worker_heartbeat"}
    assert body["checks"]["broker"]["ok"]


def test_a_dstack_pool_seen_before_the_outage_is_reported_as_not_checked(monkeypatch: Any) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("connection refused")

    readiness._dstack.configured = True  # the last read of the pools found one
    monkeypatch.setitem(readiness.CHECKS, "database", refused)
    monkeypatch.setattr(readiness._dstack, "get", refused)
    status, body = ready()
    assert status == 503
    assert "dstack" in body["failing"]
    assert body["checks"]["dstack"]["error"] == "not checked: the database does not answer"


@pytest.mark.timeout(60)
def test_probes_during_an_outage_never_starve_the_other_checks(monkeypatch: Any, settings: Any) -> None:
    """A database check that hangs (a pool waiting for a connection) is waited for by later probes,
    not started again: ten probes leave threads for the broker check (a fault run saw /readyz call
    a healthy Redis down once stuck database checks held every thread)."""
    settings.HIPJUDGE_READY_TIMEOUT = 0.2
    heartbeat_beat(name="host:1")
    release = threading.Event()
    started = []

    def hangs() -> dict[str, Any]:
        started.append(1)
        release.wait(timeout=50)
        return {}

    monkeypatch.setitem(readiness.CHECKS, "database", hangs)
    try:
        for _ in range(9):  # more probes than the checks have threads
            readiness.readiness()
        settings.HIPJUDGE_READY_TIMEOUT = 5  # the last probe: time enough for an answering check
        status, body = ready()
    finally:
        release.set()
    assert len(started) == 1  # one hung database check, waited for by every probe
    assert status == 503
    assert body["failing"] == ["database"]
    assert body["checks"]["broker"]["ok"]


class FakeDstack:
    def __init__(self, fail: bool) -> None:
        self.fail, self.calls, self.options = fail, 0, {}

    def __call__(self, **options: Any) -> FakeDstack:
        self.options = options
        return self

    def server_version(self) -> str:
        self.calls += 1
        if self.fail:
            from fleets.dstack import DstackUnreachableError

            raise DstackUnreachableError("http://10.9.9.9:3000", "connection refused")
        return "0.22.5"


@pytest.mark.parametrize("fail", [False, True])
def test_dstack_pools_add_a_cached_dstack_check(monkeypatch: Any, settings: Any, fail: bool) -> None:
    heartbeat_beat(name="host:1")
    Pool.objects.create(name="mi300x", backend=Backend.DSTACK, device="hip")
    fake = FakeDstack(fail)
    monkeypatch.setattr("fleets.dstack_pools.config.dstack_client", fake)
    first, second = ready(), ready()
    assert fake.calls == 1
    assert first[0] == second[0]  # the second probe reused the answer
    assert fake.options["timeout_s"] == settings.HIPJUDGE_READY_TIMEOUT
    assert fake.options["connect_retries"] == 0
    status, body = second
    assert body["checks"]["dstack"]["pools"] == ["mi300x"]
    assert body["checks"]["dstack"]["ok"] is not fail
    if fail:
        assert status == 503
        assert body["failing"] == ["dstack"]
        assert "DstackUnreachableError" in body["checks"]["dstack"]["error"]
        assert "10.9.9.9" not in str(body)
    else:
        assert status == 200
        assert body["checks"]["dstack"]["cached"] is True


def test_only_get_is_allowed() -> None:
    response = Client().post("/readyz", **PROBE)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_a_database_outage_answers_503_with_retry_after_not_500(monkeypatch: Any, owner: Any, api_as: Any) -> None:
    def down(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("web.api.problems.problems_filtered", down)
    response = api_as(owner).get("/api/v1/problems")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["message"] == "The database is not answering; retry in a few seconds."


class DriverError(Exception):
    """What psycopg raises under Django's OperationalError: its SQLSTATE says why."""

    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


@pytest.mark.parametrize("cause", [DriverError("40P01"), DriverError("40001"), DriverError("55P03"), None],
                         ids=["deadlock", "serialization", "lock-timeout", "sqlite-locked"])
def test_a_request_the_database_gave_up_on_answers_503_saying_it_was_busy(
        monkeypatch: Any, owner: Any, api_as: Any, cause: Any) -> None:
    def busy(*args: Any, **kwargs: Any) -> Any:
        error = OperationalError("database is locked" if cause is None else "deadlock detected")
        error.__cause__ = cause
        raise error

    monkeypatch.setattr("web.api.problems.problems_filtered", busy)
    response = api_as(owner).get("/api/v1/problems")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["message"] == "The database was busy with other requests; retry in a few seconds."

"""Reaching dstack: the server check, timeouts, bounded retries, and the error for each way it fails
(a real local server for token, project and version refusals; closed ports for the rest)."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator

import pytest
from dstack._internal.core.models.users import GlobalRole

from fleets.dstack import (
    CLIENT_VERSION,
    AccessDeniedError,
    BadTokenError,
    DstackClient,
    DstackSettings,
    DstackTimeoutError,
    DstackUnreachableError,
    ProjectMissingError,
    VersionMismatchError,
    check_versions,
    connect,
    get_fleet,
)
from tests.fleets.dstack.local_server import LocalDstack, free_port


def test_check_reports_version_user_and_backends(dstack: DstackClient) -> None:
    check = dstack.check()
    assert check.server_version == CLIENT_VERSION == "0.22.5"
    assert check.user == "admin"
    assert check.project == "main"
    assert check.backends == ()  # a fresh local server has no backend configured


def test_it_maps_a_bad_token(dstack_server: LocalDstack) -> None:
    client = dstack_server.client(token="not-the-token")
    with pytest.raises(BadTokenError, match="rejected the token") as excinfo:
        client.check()
    assert dstack_server.url in str(excinfo.value)
    assert "not-the-token" not in str(excinfo.value)


def test_it_maps_a_missing_project(dstack_server: LocalDstack) -> None:
    with pytest.raises(ProjectMissingError, match="'nope' does not exist"):
        get_fleet(dstack_server.client(project="nope"), "any")


def test_it_maps_a_valid_token_without_access_to_the_project(
    dstack_server: LocalDstack, dstack: DstackClient
) -> None:
    name = f"outsider{uuid.uuid4().hex[:6]}"
    dstack.low.users.create(name, GlobalRole.USER)
    token = dstack.low.users.refresh_token(name).creds.token
    outsider = dstack_server.client(token=token)
    assert outsider.server_version() == "0.22.5"  # the token itself is fine
    with pytest.raises(AccessDeniedError, match="denied access to project 'main'") as excinfo:
        get_fleet(outsider, "any")
    assert "members" in str(excinfo.value)


def test_the_server_refusing_a_newer_client_is_a_version_mismatch(dstack_server: LocalDstack) -> None:
    client = dstack_server.client()
    client.low._s.headers["X-API-VERSION"] = "0.99.0"  # what a newer client sends
    with pytest.raises(VersionMismatchError) as excinfo:
        client.check()
    error = excinfo.value
    assert (error.client_version, error.server_version) == ("0.99.0", "0.22.5")
    assert "pip install 'dstack==0.22.5'" in str(error)


def test_versions_must_share_major_and_minor() -> None:
    check_versions("0.22.5", "0.22.1")
    check_versions("0.22.5", None)  # a dev server reports no version
    check_versions("0.22.5", "0.0.0")  # nor does a source checkout
    for server in ("0.23.0", "0.21.9", "1.22.5"):
        with pytest.raises(VersionMismatchError, match=f"dstack=={server}"):
            check_versions("0.22.5", server)


def test_an_unreachable_server_fails_fast_after_bounded_retries() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    sleeps: list[float] = []
    settings = DstackSettings(server_url=url, token="t", connect_retries=3, backoff_s=0.1, timeout_s=2)
    client = DstackClient(settings, sleep=sleeps.append)
    with pytest.raises(DstackUnreachableError) as excinfo:
        client.check()
    assert url in str(excinfo.value)
    assert "connection refused" in str(excinfo.value)
    assert sleeps == [0.1, 0.2, 0.4]  # exponential backoff, 3 retries, then give up


def test_retries_stop_at_the_time_budget() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    sleeps: list[float] = []
    settings = DstackSettings(
        server_url=url, token="t", connect_retries=50, backoff_s=1, backoff_max_s=4, retry_budget_s=6
    )
    with pytest.raises(DstackUnreachableError):
        DstackClient(settings, sleep=sleeps.append).server_version()
    assert sum(sleeps) <= 6  # sleeps are not real here, so the bound is on what it would wait


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (kernel backlog) and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


def test_every_call_has_a_timeout(silent_port: int) -> None:
    settings = DstackSettings(server_url=f"http://127.0.0.1:{silent_port}", token="t", timeout_s=0.5)
    sleeps: list[float] = []
    with pytest.raises(DstackTimeoutError, match="did not answer within 0.5 s"):
        DstackClient(settings, sleep=sleeps.append).server_version()
    assert sleeps == []  # one attempt: a read timeout is not retried (every retry backs off first)


def test_connect_checks_the_server_up_front(dstack_server: LocalDstack) -> None:
    assert connect(dstack_server.settings()).project == "main"
    with pytest.raises(BadTokenError):
        connect(dstack_server.settings(token="wrong"))


def test_the_token_is_not_in_reprs() -> None:
    settings = DstackSettings(server_url="http://127.0.0.1:1", token="tok-secret")
    assert "tok-secret" not in repr(settings)
    assert "tok-secret" not in repr(DstackClient(settings))


def test_settings_refuse_bad_values() -> None:
    with pytest.raises(ValueError, match="http"):
        DstackSettings(server_url="127.0.0.1:3000", token="t")
    with pytest.raises(ValueError, match="token"):
        DstackSettings(server_url="http://127.0.0.1:3000", token="")

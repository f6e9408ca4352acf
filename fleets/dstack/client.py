"""A thin, safe wrapper around `dstack.api.Client` for one server, token and project.

dstack's HTTP session has no timeout and its own retry loop sleeps a fixed second on connection
errors, then raises a generic ClientError. A worker must never hang on a dead server, so every
request goes through `_guarded_request` (installed on `client.client._s`), which

- gives each request a timeout,
- retries connection errors (the request never reached the server, so retrying is safe) with an
  exponential backoff bounded in attempts and total time,
- turns the HTTP answers that mean "wrong token", "no such project" or "client too new" into this
  package's errors before dstack's generic handling sees them.

Everything else dstack raises is translated by `DstackClient.call`.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pydantic
import requests
from dstack import version as dstack_version
from dstack._internal.core import errors as dse
from dstack._internal.utils.version import parse_version
from dstack.api import Client
from dstack.api.server import APIClient

from fleets.dstack.errors import (
    AccessDeniedError,
    BadTokenError,
    DstackError,
    DstackRequestError,
    DstackServerError,
    DstackTimeoutError,
    DstackUnreachableError,
    ProjectMissingError,
    VersionMismatchError,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")

CLIENT_VERSION: str = dstack_version.__version__
_INCOMPATIBLE = re.compile(r"version \(([^)]+)\) is incompatible with the server version \(([^)]+)\)")


@dataclass(frozen=True)
class DstackSettings:
    """Where and how to reach dstack. The token never appears in repr()."""

    server_url: str
    token: str = field(repr=False)
    project: str = "main"
    timeout_s: float = 30.0
    connect_retries: int = 3
    backoff_s: float = 0.5
    backoff_max_s: float = 8.0
    # Upper bound on the time one call may spend retrying connection errors.
    retry_budget_s: float = 30.0

    def __post_init__(self) -> None:
        if not self.server_url.startswith(("http://", "https://")):
            raise ValueError(f"dstack server URL must start with http:// or https://: {self.server_url!r}")
        if not self.token:
            raise ValueError("dstack token is empty")
        if not self.project:
            raise ValueError("dstack project is empty")


@dataclass(frozen=True)
class ServerCheck:
    server_url: str
    project: str
    client_version: str
    server_version: str | None  # None: a dev build of the server, which reports no version
    user: str
    backends: tuple[str, ...]  # backends configured in the project (dstack Sky: its base backends)


def check_versions(client_version: str, server_version: str | None) -> None:
    """Raise VersionMismatchError unless both are the same major.minor (dev builds always pass).

    The server itself only refuses a client whose minor is newer; an older client talking to a newer
    server mostly works but the models in dstack._internal that we build may have moved, so pin.
    """
    if server_version is None:
        return
    client, server = parse_version(client_version), parse_version(server_version)
    if client is None or server is None:
        return
    if (client.major, client.minor) != (server.major, server.minor):
        raise VersionMismatchError(client_version, server_version)


def enum_value(value: object) -> str:
    """`.value` of an enum, the string itself otherwise: never `str(enum)` ('RunStatus.DONE')."""
    inner = getattr(value, "value", value)
    return inner if isinstance(inner, str) else str(inner)


class DstackClient:
    """One dstack server + token + project, with timeouts, retries and error translation.

    `api` is dstack's high-level Client (runs), `low` the low-level APIClient (fleets, projects).
    """

    def __init__(self, settings: DstackSettings, *, sleep: Callable[[float], None] = time.sleep,
                 on_error: Callable[[DstackError], None] | None = None) -> None:
        self.settings = settings
        self._sleep = sleep
        self._on_error = on_error  # told of every failed call (the platform counts them for /metrics)
        self.api: Client = Client.from_config(
            project_name=settings.project, server_url=settings.server_url, user_token=settings.token
        )
        session = self.low._s
        self._send = session.request
        session.request = self._guarded_request  # type: ignore[method-assign]

    def __repr__(self) -> str:
        return f"DstackClient(server_url={self.server_url!r}, project={self.project!r})"

    @property
    def low(self) -> APIClient:
        return self.api.client

    @property
    def server_url(self) -> str:
        return self.settings.server_url.rstrip("/")

    @property
    def project(self) -> str:
        return self.settings.project

    def auth_headers(self) -> dict[str, str]:
        """Headers for the server's service proxy (`auth: true` services take the dstack token)."""
        return {"Authorization": f"Bearer {self.settings.token}"}

    # -- calls ---------------------------------------------------------------------------------

    def call(
        self,
        what: str,
        fn: Callable[[], T],
        *,
        not_found: Callable[[], DstackError] | None = None,
    ) -> T:
        """Run one dstack operation; `what` completes "dstack failed to ..." in error messages."""
        try:
            return self._translated(what, fn, not_found)
        except DstackError as error:
            if self._on_error is not None:
                self._on_error(error)
            raise

    def _translated(self, what: str, fn: Callable[[], T], not_found: Callable[[], DstackError] | None) -> T:
        try:
            return fn()
        except DstackError:
            raise
        except dse.ResourceNotExistsError as e:
            if not_found is not None:
                raise not_found() from e
            raise DstackRequestError(what, e.msg or "resource not found") from e
        except dse.ServerClientError as e:
            raise DstackRequestError(what, e.msg or str(e)) from e
        except dse.ConfigurationError as e:
            raise DstackRequestError(what, str(e)) from e
        except (dse.DstackError, requests.RequestException, pydantic.ValidationError) as e:
            # ValidationError: the server's answer does not fit our models (a version skew).
            raise DstackServerError(what, f"{type(e).__name__}: {e}") from e

    def server_version(self) -> str | None:
        def get_info() -> Any:
            return self.low._request("/api/server/get_info").json()

        return self.call("read the server version", get_info).get("server_version")

    def check(self) -> ServerCheck:
        """Reachability, version pin, token and project in one go (what `fleet plan` runs first)."""
        server_version = self.server_version()
        check_versions(CLIENT_VERSION, server_version)
        user = self.call("read the current user", lambda: self.low.users.get_my_user().username)
        return ServerCheck(
            server_url=self.server_url,
            project=self.project,
            client_version=CLIENT_VERSION,
            server_version=server_version,
            user=user,
            backends=self.project_backends(),
        )

    def project_backends(self) -> tuple[str, ...]:
        project = self.call("read the project", lambda: self.low.projects.get(self.project))
        return tuple(sorted({enum_value(b.name) for b in project.backends}))

    # -- transport -----------------------------------------------------------------------------

    def _guarded_request(self, method: str, url: str, **kwargs: Any) -> requests.Response:
        s = self.settings
        kwargs.setdefault("timeout", s.timeout_s)
        started = time.monotonic()
        attempt, slept = 0, 0.0
        while True:
            try:
                response = self._send(method, url, **kwargs)
                break
            except requests.exceptions.ConnectionError as e:
                attempt += 1
                delay = min(s.backoff_s * 2 ** (attempt - 1), s.backoff_max_s)
                spent = max(time.monotonic() - started, slept)  # `slept` counts when sleep is faked
                if attempt > s.connect_retries or spent + delay > s.retry_budget_s:
                    raise DstackUnreachableError(self.server_url, _reason(e)) from e
                logger.info("dstack %s unreachable (attempt %d), retrying in %.1fs", url, attempt, delay)
                _rewind_uploads(kwargs)
                self._sleep(delay)
                slept += delay
            except requests.exceptions.Timeout as e:
                # A read timeout: the server may have acted on the request, so it is not retried.
                raise DstackTimeoutError(self.server_url, float(kwargs["timeout"])) from e
        self._raise_known_refusals(response)
        return response

    def _raise_known_refusals(self, response: requests.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        message = _detail_message(response)
        path = requests.utils.urlparse(response.url).path
        if status == 401 or (status == 403 and "invalid token" in message.lower()):
            raise BadTokenError(self.server_url)
        if status == 403:
            raise AccessDeniedError(self.server_url, self.project, message)
        if status == 400 and (match := _INCOMPATIBLE.search(message)):
            raise VersionMismatchError(match.group(1), match.group(2))
        if status == 404 and path.startswith(
            (f"/api/project/{self.project}/", f"/api/projects/{self.project}/")
        ):
            raise ProjectMissingError(self.server_url, self.project)


def connect(settings: DstackSettings, *, check: bool = True) -> DstackClient:
    """A client for `settings`; with `check`, fail now on an unreachable server, a version
    mismatch, a bad token or a missing project rather than at the first real call."""
    client = DstackClient(settings)
    if check:
        client.check()
    return client


def _detail_message(response: requests.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        return response.text[:200]
    if isinstance(detail, dict):
        return str(detail.get("msg", ""))
    if isinstance(detail, list):
        return "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
    return str(detail or "")


def _reason(error: Exception) -> str:
    text = str(error)
    for marker in ("Connection refused", "Name or service not known", "timed out", "No route to host"):
        if marker in text:
            return marker.lower()
    return type(error).__name__


def _rewind_uploads(kwargs: dict[str, Any]) -> None:
    """A retried multipart upload must resend the whole file, not what is left of it."""
    files = kwargs.get("files") or {}
    for value in files.values():
        fp = value[1] if isinstance(value, tuple) else value
        if hasattr(fp, "seek"):
            fp.seek(0)

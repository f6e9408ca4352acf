"""What can go wrong between the CLI and its server, each with its exit code (cli.codes): the
server refused (ApiError), could not be reached or stopped answering in time (ConnectionFailed,
TimedOut, DeadlinePassed), or answered something the CLI cannot use (BadResponse)."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """The server answered with an HTTP error status (its message, when it gave one)."""

    def __init__(self, status: int, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra or {}


class ConnectionFailed(Exception):
    """No usable connection: refused, reset, closed early, or an answer cut short."""


class TimedOut(ConnectionFailed):
    """An answer took longer than --timeout, or the server went silent for that long."""


class DeadlinePassed(TimedOut):
    """The command's own deadline (--deadline) passed: `--wait` / `--watch` stop following there."""


class BadResponse(Exception):
    """The server answered, but not with what the CLI can read: not JSON, the wrong shape, too large."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"the server sent an unexpected response: {problem}")

"""Errors of the dstack layer: every one says what went wrong and what to do about it.

Callers (admin actions, `manage.py fleet ...`, the provisioning task) show `str(error)` to staff or
turn it into a VM/submission reason, so the text is written for a person, not for a log parser.
Each error keeps its facts as attributes for code that needs them.
"""

from __future__ import annotations

from collections.abc import Sequence


class DstackError(Exception):
    """Base class: `message` says what happened, `hint` what to do (may be empty)."""

    def __init__(self, message: str, hint: str = "") -> None:
        self.message = message
        self.hint = hint
        super().__init__(f"{message} {hint}".strip())


class DstackUnreachableError(DstackError):
    """Nothing answered at the server URL (connection refused, DNS, network down)."""

    def __init__(self, server_url: str, detail: str = "") -> None:
        self.server_url = server_url
        suffix = f" ({detail})" if detail else ""
        super().__init__(
            f"The dstack server at {server_url} is unreachable{suffix}.",
            "Check that `dstack server` is running there (or the dstack Sky URL is right) and that "
            "this machine can reach it.",
        )


class DstackTimeoutError(DstackUnreachableError):
    """The server accepted the connection but did not answer in time."""

    def __init__(self, server_url: str, timeout_s: float) -> None:
        DstackError.__init__(
            self,
            f"The dstack server at {server_url} did not answer within {timeout_s:g} s.",
            "It may be overloaded or stuck; check its logs, then retry.",
        )
        self.server_url = server_url
        self.timeout_s = timeout_s


class BadTokenError(DstackError):
    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        super().__init__(
            f"The dstack server at {server_url} rejected the token.",
            "Use a valid user token (dstack UI > user settings, or the admin token the server "
            "printed at start) in the fleet's dstack settings.",
        )


class AccessDeniedError(DstackError):
    def __init__(self, server_url: str, project: str, detail: str = "") -> None:
        self.server_url = server_url
        self.project = project
        suffix = f": {detail}" if detail else ""
        super().__init__(
            f"The dstack server at {server_url} denied access to project '{project}'{suffix}.",
            "Add the token's user to the project (dstack UI > project > members) with the "
            "'user' role or higher.",
        )


class ProjectMissingError(DstackError):
    def __init__(self, server_url: str, project: str) -> None:
        self.server_url = server_url
        self.project = project
        super().__init__(
            f"The dstack project '{project}' does not exist on {server_url}.",
            "Create it in the dstack UI, or fix the project name (a fresh `dstack server` has 'main').",
        )


class VersionMismatchError(DstackError):
    def __init__(self, client_version: str, server_version: str) -> None:
        self.client_version = client_version
        self.server_version = server_version
        super().__init__(
            f"The dstack client {client_version} does not match the dstack server {server_version}.",
            f"Pin the client to the server's version: pip install 'dstack=={server_version}' "
            f"(and the same for 'dstack[server]' on the server), or run a {client_version} server.",
        )


class BackendNotConfiguredError(DstackError):
    def __init__(self, project: str, missing: Sequence[str], configured: Sequence[str]) -> None:
        self.project = project
        self.missing = tuple(missing)
        self.configured = tuple(configured)
        have = ", ".join(configured) if configured else "none"
        super().__init__(
            f"The dstack project '{project}' has no backend {', '.join(self.missing)} configured "
            f"(configured: {have}).",
            "Add it in the dstack UI (project > backends) or in ~/.dstack/server/config.yml with "
            "its API key, or change the fleet's backends.",
        )


class FleetMissingError(DstackError):
    def __init__(self, name: str, project: str) -> None:
        self.name = name
        self.project = project
        super().__init__(
            f"The dstack fleet '{name}' does not exist in project '{project}'.",
            f"Create it with `manage.py fleet apply {name}`.",
        )


class FleetBusyError(DstackError):
    def __init__(self, name: str, busy_instances: Sequence[str]) -> None:
        self.name = name
        self.busy_instances = tuple(busy_instances)
        super().__init__(
            f"The dstack fleet '{name}' has busy instances: {', '.join(self.busy_instances)}.",
            "Drain its VMs first (or delete with force to kill the running jobs).",
        )


class FleetRecreateRequiredError(DstackError):
    def __init__(self, name: str, fields: Sequence[str]) -> None:
        self.name = name
        self.fields = tuple(fields)
        super().__init__(
            f"The dstack fleet '{name}' cannot be updated in place (changed: {', '.join(self.fields)}).",
            "Apply with recreate to delete and re-create it; its instances (warm VMs) are terminated.",
        )


class FleetVerificationError(DstackError):
    def __init__(self, name: str, differences: Sequence[object]) -> None:
        self.name = name
        self.differences = tuple(differences)
        listed = "; ".join(str(d) for d in self.differences)
        super().__init__(
            f"The dstack fleet '{name}' does not match its settings after apply: {listed}.",
            "Run `manage.py fleet verify` and check the dstack server logs.",
        )


class RunMissingError(DstackError):
    def __init__(self, run: str, project: str) -> None:
        self.run = run
        self.project = project
        super().__init__(f"The dstack run {run} does not exist in project '{project}'.")


class NoCapacityError(DstackError):
    """No offer can host the VM: the text is the one users see on a REJECTED submission."""

    def __init__(self, gpu: str, backends: Sequence[str], detail: str = "") -> None:
        self.gpu = gpu
        self.backends = tuple(backends)
        super().__init__(
            no_capacity_sentence(gpu, backends),
            detail or "Try again later; staff can add another backend or raise the fleet's nodes.",
        )


class DstackRequestError(DstackError):
    """The server refused a request (validation, conflict, unsupported change)."""

    def __init__(self, what: str, detail: str) -> None:
        self.what = what
        self.detail = detail
        super().__init__(f"dstack refused to {what}: {detail}")


class DstackServerError(DstackError):
    """Anything else the server or the client library reported."""

    def __init__(self, what: str, detail: str) -> None:
        self.what = what
        self.detail = detail
        super().__init__(
            f"dstack failed to {what}: {detail}",
            "Check the dstack server logs; retry if it was transient.",
        )


def no_capacity_sentence(gpu: str, backends: Sequence[str]) -> str:
    where = ", ".join(backends) if backends else "the fleet's backends"
    return f"no {gpu} capacity on {where} right now"

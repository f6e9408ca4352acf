"""The contract every VM backend fulfils (local agent processes, dstack runs).

Backends do the infrastructure work and report facts; fleets.services owns every state change of
a VMInstance row. A backend never touches the database itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from fleets.models import Pool, VMInstance


class ProvisionError(Exception):
    """The VM could not be started; the message is a sentence a user can act on."""


class CapacityError(ProvisionError):
    """The pool cannot get a VM now: no capacity, or none became ready within the pool's limit.
    Retrying at once would fail the same way, so waiting work ends REJECTED with this sentence
    unless another VM of the pool can take it."""


@dataclass
class Provisioned:
    """What a started VM needs recorded: how to reach its agent, and the backend's handle."""

    base_url: str
    pid: int | None = None
    handle: str = ""
    agent_info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Orphan:
    """Something running that no live VM row owns (an agent process, a dstack run)."""

    handle: str
    description: str


@runtime_checkable
class Backend(Protocol):
    kind: str

    def provision(self, vm: VMInstance) -> Provisioned:
        """Start the VM and its agent (token: `vm.token`); block until the agent answers health
        or raise ProvisionError. Must be safe to call again for the same VM after a crash."""
        ...

    def is_alive(self, vm: VMInstance) -> bool:
        """Whether the VM's agent still exists (process / run), without asking the agent."""
        ...

    def gone_reason(self, vm: VMInstance) -> str:
        """Why is_alive said no, as a sentence for the VM's state_reason."""
        ...

    def stop(self, vm: VMInstance) -> None:
        """Tear the VM down; idempotent; a VM already gone is not an error."""
        ...

    def find_orphans(self, pool: Pool, live_vm_ids: set[str]) -> list[Orphan]:
        """Things this backend runs for the pool that belong to no live VM row."""
        ...

    def kill_orphan(self, pool: Pool, orphan: Orphan) -> None:
        ...

    def agent_headers(self, vm: VMInstance) -> dict[str, str]:
        """Extra HTTP headers for talking to this VM's agent (besides X-Agent-Token)."""
        ...

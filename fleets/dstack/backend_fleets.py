"""Backend fleets: plan (dry run), apply (then verify), verify, delete, list instances.

dstack has no high-level fleet API; this uses the low-level `client.low.fleets` calls with
`FleetSpec` built by specs.py. Deletion is asynchronous (the fleet shows `terminating` first), so
delete and recreate poll with a bound in time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dstack._internal.core.models.fleets import Fleet, FleetConfiguration

from fleets.dstack.client import DstackClient, enum_value
from fleets.dstack.errors import (
    BackendNotConfiguredError,
    DstackRequestError,
    FleetBusyError,
    FleetMissingError,
    FleetRecreateRequiredError,
    FleetVerificationError,
    no_capacity_sentence,
)
from fleets.dstack.specs import FleetSettings, fleet_configuration, fleet_spec, fleet_yaml

# dstack locks a fleet while its background task processes it (right after it is created, for one) and
# refuses changes meanwhile with "... is being processed currently. Try again later.": we do, for a while.
BUSY_REFUSAL = "being processed currently"
BUSY_RETRY_S = 20.0
BUSY_POLL_S = 0.5


def retry_while_busy(call: Callable[[], Any], *, wait_s: float = BUSY_RETRY_S, poll_s: float = BUSY_POLL_S,
                     sleep: Callable[[float], None] = time.sleep) -> Any:
    """call(), again while dstack refuses it because the fleet is being processed, for at most wait_s."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return call()
        except DstackRequestError as error:
            if BUSY_REFUSAL not in error.detail or time.monotonic() + poll_s > deadline:
                raise
        sleep(poll_s)


@dataclass(frozen=True)
class Difference:
    field: str
    expected: Any
    actual: Any

    def __str__(self) -> str:
        return f"{self.field}: expected {self.expected!r}, dstack has {self.actual!r}"


@dataclass(frozen=True)
class FleetPlan:
    """`fleet plan`: what apply would do. Nothing was created to produce it."""

    name: str
    yaml: str
    action: str  # create | update | recreate | none
    offers: int  # offers dstack sees now for one instance of this fleet
    max_price: float | None  # $/h of the dearest offer
    changes: tuple[Difference, ...]  # against the existing fleet, if any
    backends_not_configured: tuple[str, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class FleetState:
    name: str
    id: str
    status: str
    action: str  # what apply did: create | update | recreate | none
    instances: int  # not terminated


@dataclass(frozen=True)
class FleetInstance:
    name: str
    instance_num: int
    status: str  # pending, provisioning, idle, busy, terminating, terminated
    backend: str | None
    region: str | None
    price: float | None  # $/h
    created: datetime
    finished_at: datetime | None
    busy_blocks: int
    total_blocks: int | None
    termination_reason: str | None


def get_fleet(client: DstackClient, name: str) -> Fleet:
    return client.call(
        f"read fleet {name}",
        lambda: client.low.fleets.get(client.project, name=name),
        not_found=lambda: FleetMissingError(name, client.project),
    )


def fleet_exists(client: DstackClient, name: str) -> bool:
    try:
        fleet = get_fleet(client, name)
    except FleetMissingError:
        return False
    return enum_value(fleet.status) not in ("terminated",)


def plan_fleet(client: DstackClient, settings: FleetSettings) -> FleetPlan:
    configured = client.project_backends()
    missing = tuple(b for b in settings.backends if b not in configured)
    plan = client.call(
        f"plan fleet {settings.name}",
        lambda: client.low.fleets.get_plan(client.project, fleet_spec(settings)),
    )
    current = plan.current_resource
    changes = tuple(diff_fleet(settings, current)) if current is not None else ()
    action = _action(enum_value(plan.action) if plan.action is not None else "create", current, changes)
    warnings = []
    if missing:
        warnings.append(str(BackendNotConfiguredError(client.project, missing, configured)))
    if plan.total_offers == 0:
        warnings.append(
            f"{no_capacity_sentence(settings.gpu_name, settings.backends)}: dstack sees no offer "
            "for this fleet; VMs will fail with no capacity until one appears."
        )
    return FleetPlan(
        name=settings.name,
        yaml=fleet_yaml(settings),
        action=action,
        offers=plan.total_offers,
        max_price=plan.max_offer_price,
        changes=changes,
        backends_not_configured=missing,
        warnings=tuple(warnings),
    )


def apply_fleet(
    client: DstackClient,
    settings: FleetSettings,
    *,
    recreate: bool = False,
    require_backends: bool = True,
    wait_s: float = 60.0,
) -> FleetState:
    """Create or update the fleet, then check it really exists and matches (FleetVerificationError).

    A change dstack cannot make in place (e.g. idle_duration) needs `recreate`, which deletes the
    fleet and its instances first. `require_backends` refuses backends the project lacks.
    """
    if require_backends:
        configured = client.project_backends()
        missing = [b for b in settings.backends if b not in configured]
        if missing:
            raise BackendNotConfiguredError(client.project, missing, configured)
    spec = fleet_spec(settings)
    plan = client.call(
        f"plan fleet {settings.name}", lambda: client.low.fleets.get_plan(client.project, spec)
    )
    current = plan.current_resource
    changes = list(diff_fleet(settings, current)) if current is not None else []
    action = _action(enum_value(plan.action) if plan.action is not None else "create", current, changes)
    if action == "recreate":
        if not recreate:
            raise FleetRecreateRequiredError(settings.name, [c.field for c in changes])
        delete_fleet(client, settings.name, wait_s=wait_s, require_gone=True)
        plan = client.call(
            f"plan fleet {settings.name}", lambda: client.low.fleets.get_plan(client.project, spec)
        )
    if action != "none":
        retry_while_busy(lambda: client.call(
            f"apply fleet {settings.name}", lambda: client.low.fleets.apply_plan(client.project, plan)
        ))
    fleet = get_fleet(client, settings.name)
    differences = diff_fleet(settings, fleet)
    if differences:
        raise FleetVerificationError(settings.name, differences)
    return FleetState(
        name=fleet.name,
        id=str(fleet.id),
        status=enum_value(fleet.status),
        action=action,
        instances=sum(1 for i in fleet.instances if enum_value(i.status) != "terminated"),
    )


def verify_fleet(client: DstackClient, settings: FleetSettings) -> list[Difference]:
    """Differences between dstack's fleet and `settings` (empty: in sync). FleetMissingError if absent."""
    return diff_fleet(settings, get_fleet(client, settings.name))


def diff_fleet(settings: FleetSettings, fleet: Fleet) -> list[Difference]:
    expected = _comparable(fleet_configuration(settings))
    actual = _comparable(fleet.spec.configuration)
    differences = _diff("", expected, actual)
    status = enum_value(fleet.status)
    if status != "active":
        differences.insert(0, Difference("status", "active", status))
    return differences


def delete_fleet(
    client: DstackClient,
    name: str,
    *,
    force: bool = False,
    wait_s: float = 30.0,
    poll_s: float = 1.0,
    require_gone: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """Delete the fleet; returns "gone", or "terminating" if it still shows after `wait_s`.

    Refuses (FleetBusyError) while instances are busy unless `force`. `require_gone` turns a fleet
    still terminating after `wait_s` into an error (recreate needs the name free).
    """
    fleet = get_fleet(client, name)
    busy = [i.name for i in fleet.instances if enum_value(i.status) == "busy" or i.busy_blocks > 0]
    if busy and not force:
        raise FleetBusyError(name, busy)
    retry_while_busy(lambda: client.call(f"delete fleet {name}",
                                         lambda: client.low.fleets.delete(client.project, [name])), sleep=sleep)
    deadline = time.monotonic() + wait_s
    while True:
        if not fleet_exists(client, name):
            return "gone"
        if time.monotonic() + poll_s > deadline:
            break
        sleep(poll_s)
    if require_gone:
        raise DstackRequestError(
            f"re-create fleet {name}", f"the old fleet is still terminating after {wait_s:g} s; retry shortly"
        )
    return "terminating"


def list_fleet_instances(
    client: DstackClient, name: str, *, include_terminated: bool = False
) -> list[FleetInstance]:
    """The fleet's instances (dstack also returns terminated ones: filtered out by default)."""
    result = []
    for i in get_fleet(client, name).instances:
        status = enum_value(i.status)
        if status == "terminated" and not include_terminated:
            continue
        result.append(
            FleetInstance(
                name=i.name,
                instance_num=i.instance_num,
                status=status,
                backend=enum_value(i.backend) if i.backend is not None else None,
                region=i.region,
                price=i.price,
                created=i.created,
                finished_at=i.finished_at,
                busy_blocks=i.busy_blocks,
                total_blocks=i.total_blocks,
                termination_reason=i.termination_reason,
            )
        )
    return result


def _action(
    dstack_action: str, current: Fleet | None, changes: list[Difference] | tuple[Difference, ...]
) -> str:
    if current is None:
        return "create"
    if not changes:
        return "none"
    # dstack answers "create" for an existing fleet when the change cannot be made in place.
    return "recreate" if dstack_action == "create" else "update"


def _comparable(conf: FleetConfiguration) -> dict[str, Any]:
    nodes = conf.nodes
    return {
        "nodes": f"{nodes.min}..{nodes.max if nodes.max is not None else ''}" if nodes else None,
        "backends": sorted(enum_value(b) for b in conf.backends or []),
        "resources": conf.resources.model_dump(mode="json") if conf.resources else None,
        "idle_duration": conf.idle_duration,
        "spot_policy": enum_value(conf.spot_policy) if conf.spot_policy is not None else None,
        "regions": sorted(conf.regions or []),
        "max_price": conf.max_price,
        "ssh_config": "set" if conf.ssh_config is not None else None,
    }


def _diff(prefix: str, expected: Any, actual: Any) -> list[Difference]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[Difference] = []
        for key in sorted(set(expected) | set(actual), key=str):
            out += _diff(f"{prefix}.{key}" if prefix else str(key), expected.get(key), actual.get(key))
        return out
    return [] if expected == actual else [Difference(prefix, expected, actual)]

"""What we ask dstack for: the backend-fleet configuration and the VM service run configuration.

Both are built as plain dicts (what `fleet plan` shows as YAML) and validated with dstack's own
model classes, so a typo fails here with dstack's message instead of on the server.

A VM is a dstack *service* (`hj-vm-<short id>`) so that the dstack server's service proxy reaches
its agent over HTTP with the dstack token: no SSH tunnel, no gateway. The configuration always sets
`user: root`, `resources.cpu.arch: x86` and non-empty `commands`: with those the server never has to
read the image's config from a registry before it schedules the run (MI300X VMs are x86 and ROCm
images run as root anyway), which also lets a local test server accept it offline.
"""

from __future__ import annotations

import re
import shlex
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import pydantic
import yaml
from dstack._internal.core.models.backends.base import BackendType
from dstack._internal.core.models.configurations import ServiceConfiguration
from dstack._internal.core.models.fleets import FleetConfiguration, FleetSpec
from dstack._internal.core.models.profiles import Profile, SpotPolicy

VM_RUN_PREFIX = "hj-vm-"
AGENT_TOKEN_ENV = "HIPJUDGE_AGENT_TOKEN"
REDACTED = "***"
CONTAINER_DIR = "/opt/hipjudge"  # where a VM's container holds the agent package (and its token file)
_NAME = re.compile(r"^[a-z][a-z0-9-]{1,40}$")  # dstack's resource-name rule
# name[:port]/path:tag@sha256:digest — both a tag (readable) and a digest (immutable) are required.
_PINNED_IMAGE = re.compile(r"^[a-z0-9][a-z0-9._/:-]*:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}@sha256:[0-9a-f]{64}$")
_BACKENDS = {b.value for b in BackendType}
_SPOT_POLICIES = {p.value for p in SpotPolicy}


@dataclass(frozen=True)
class FleetSettings:
    """A backend fleet (a pool of MI300X VMs). Sizes are dstack strings: "192GB", "10m"."""

    name: str
    backends: tuple[str, ...] = ("amddevcloud",)
    gpu_name: str = "MI300X"
    gpu_memory: str | None = "192GB"
    gpu_count: int = 1
    cpu_min: int = 2
    memory_min: str = "8GB"
    disk_min: str = "100GB"
    nodes_min: int = 0
    nodes_max: int = 1
    idle_duration: str = "10m"
    spot_policy: str = "auto"
    max_price: float | None = None  # $/h cap per instance; None: no cap
    regions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"fleet name {self.name!r} must match {_NAME.pattern} (dstack's rule)")
        if not self.backends:
            raise ValueError("a backend fleet needs at least one backend")
        unknown = [b for b in self.backends if b not in _BACKENDS]
        if unknown:
            raise ValueError(f"unknown dstack backend(s) {unknown}; known: {', '.join(sorted(_BACKENDS))}")
        if self.spot_policy not in _SPOT_POLICIES:
            raise ValueError(f"spot_policy must be one of {sorted(_SPOT_POLICIES)}, not {self.spot_policy!r}")
        if not 0 <= self.nodes_min <= self.nodes_max:
            raise ValueError(f"nodes must satisfy 0 <= min <= max, got {self.nodes_min}..{self.nodes_max}")
        if self.gpu_count < 1 or self.cpu_min < 1:
            raise ValueError("gpu_count and cpu_min must be at least 1")
        fleet_configuration(self)  # dstack's own validation of sizes and durations

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> FleetSettings:
        """From stored JSON (lists become tuples); unknown keys are an error, not ignored."""
        known = {f.name for f in fields(cls)}
        extra = set(data) - known
        if extra:
            raise ValueError(f"unknown fleet setting(s): {sorted(extra)}")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return cls(**values)

    @property
    def nodes(self) -> str:
        return f"{self.nodes_min}..{self.nodes_max}"


@dataclass(frozen=True)
class VmRunSettings:
    """One VM: a service run on `fleet` that starts the agent shipped from `agent_dir`."""

    fleet: FleetSettings
    vm_id: str
    image: str  # pinned: name:tag@sha256:<digest>
    agent_dir: Path  # local directory of the `agent` package, shipped with `files:`
    agent_token: str = field(repr=False)
    max_duration: str = "6h"  # hard cap on the VM's life: a leaked run cannot bill forever
    port: int = 8000
    user: str = "root"
    cpu_arch: str = "x86"
    container_dir: str = CONTAINER_DIR
    agent_args: tuple[str, ...] = ()  # extra `agent serve` flags, e.g. ("--device", "hip")
    # Shell commands run before the agent (install what the image lacks); empty: none.
    setup_commands: tuple[str, ...] = ()
    # A privileged container lets the agent's bubblewrap sandbox create its namespaces.
    privileged: bool = False

    def __post_init__(self) -> None:
        if not _PINNED_IMAGE.match(self.image):
            raise ValueError(
                f"image {self.image!r} must be pinned by tag and digest: name:tag@sha256:<64 hex>"
            )
        if not self.agent_dir.is_absolute():
            raise ValueError(f"agent_dir must be an absolute path, got {str(self.agent_dir)!r}")
        if not self.agent_token:
            raise ValueError("agent_token is empty")
        if not self.container_dir.startswith("/"):
            raise ValueError("container_dir must be absolute")

    @property
    def run_name(self) -> str:
        return vm_run_name(self.vm_id)

    @property
    def token_file(self) -> str:
        return f"{self.container_dir}/agent.token"


def vm_run_name(vm_id: str | uuid.UUID) -> str:
    """`hj-vm-<first 8 hex of the VM's UUID>` (other ids: their first 12 [a-z0-9] characters)."""
    try:
        short = uuid.UUID(str(vm_id)).hex[:8]
    except ValueError:
        short = re.sub(r"[^a-z0-9]", "", str(vm_id).lower())[:12]
    if not short:
        raise ValueError(f"cannot derive a run name from VM id {vm_id!r}")
    return f"{VM_RUN_PREFIX}{short}"


def _resources(fleet: FleetSettings, cpu_arch: str | None = None) -> dict[str, Any]:
    gpu: dict[str, Any] = {"name": fleet.gpu_name}
    if fleet.gpu_memory:
        gpu["memory"] = fleet.gpu_memory
    gpu["count"] = fleet.gpu_count
    cpu = f"{fleet.cpu_min}.."
    return {
        "gpu": gpu,
        "cpu": f"{cpu_arch}:{cpu}" if cpu_arch else cpu,
        "memory": f"{fleet.memory_min}..",
        "disk": f"{fleet.disk_min}..",
    }


def fleet_config(settings: FleetSettings) -> dict[str, Any]:
    """The backend-fleet configuration: `type: fleet`, nodes, backends, resources, idle_duration,
    spot_policy (never `ssh_config`: amddevcloud and hotaisle provision through their APIs)."""
    config: dict[str, Any] = {
        "type": "fleet",
        "name": settings.name,
        "nodes": settings.nodes,
        "backends": list(settings.backends),
        "resources": _resources(settings),
        "idle_duration": settings.idle_duration,
        "spot_policy": settings.spot_policy,
    }
    if settings.regions:
        config["regions"] = list(settings.regions)
    if settings.max_price is not None:
        config["max_price"] = settings.max_price
    return config


def fleet_configuration(settings: FleetSettings) -> FleetConfiguration:
    return _validated(FleetConfiguration, fleet_config(settings), f"fleet {settings.name}")


def fleet_spec(settings: FleetSettings) -> FleetSpec:
    return FleetSpec(configuration=fleet_configuration(settings), profile=Profile(name="default"))


def fleet_yaml(settings: FleetSettings) -> str:
    return to_yaml(fleet_config(settings))


def vm_service_config(settings: VmRunSettings, *, reveal_token: bool = False) -> dict[str, Any]:
    """The VM's service run configuration; the token is `***` unless `reveal_token` (submit only)."""
    fleet = settings.fleet
    # All interfaces inside the container: dstack forwards the service port to it, nothing else.
    listen = ["--host", "0.0.0.0", "--port", str(settings.port)]  # noqa: S104
    serve = ["python3", "-m", "agent", "serve", *listen, "--token-file", settings.token_file]
    serve += settings.agent_args
    commands = [
        *settings.setup_commands,
        # The token goes from env to a 0600 file and leaves the environment before the agent
        # starts, so neither the agent's children (user code) nor `ps e` see it.
        "umask 077",
        f"printf '%s' \"${AGENT_TOKEN_ENV}\" > {shlex.quote(settings.token_file)}",
        f"unset {AGENT_TOKEN_ENV}",
        f"cd {shlex.quote(settings.container_dir)}",
        "exec " + shlex.join(serve),
    ]
    config: dict[str, Any] = {
        "type": "service",
        "name": settings.run_name,
        "image": settings.image,
        "user": settings.user,
        "env": {AGENT_TOKEN_ENV: settings.agent_token if reveal_token else REDACTED},
        "files": [f"{settings.agent_dir}:{settings.container_dir}/agent"],
        "commands": commands,
        "port": settings.port,
        "auth": True,
        # Served by the dstack server's own proxy at /proxy/services/<project>/<run>/.
        "gateway": False,
        "resources": _resources(fleet, settings.cpu_arch),
        "fleets": [fleet.name],
        "creation_policy": "reuse-or-create",
        # Set on the run too: an instance gets the shorter of the two, and runs default to
        # on-demand whatever the fleet says.
        "idle_duration": fleet.idle_duration,
        "spot_policy": fleet.spot_policy,
        "max_duration": settings.max_duration,
    }
    if settings.privileged:
        config["privileged"] = True
    return config


def vm_service_configuration(settings: VmRunSettings) -> ServiceConfiguration:
    """The validated configuration to submit (it carries the real token: do not log it)."""
    return _validated(ServiceConfiguration, vm_service_config(settings, reveal_token=True), settings.run_name)


def vm_service_yaml(settings: VmRunSettings) -> str:
    return to_yaml(vm_service_config(settings))


def to_yaml(config: Mapping[str, Any]) -> str:
    return yaml.safe_dump(dict(config), sort_keys=False, default_flow_style=False)


def _validated(model: type[Any], data: dict[str, Any], what: str) -> Any:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors())
        raise ValueError(f"invalid dstack configuration for {what}: {problems}") from None

"""Where Django meets the dstack layer: the server from settings, and a pool's dstack settings from
its Pool row.

A dstack pool keeps its backend-fleet settings in `Pool` fields (name, gpu_name, gpu_count,
max_vms, idle_timeout_s) and `Pool.config` (everything else; DSTACK_DEFAULTS fill the gaps), so
an empty config already describes one MI300X 192GB on amddevcloud. The dstack server comes from
DSTACK_SERVER_URL / DSTACK_TOKEN / DSTACK_PROJECT and nowhere else: no token is ever stored in the
database.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.conf import settings

from core.counters import DSTACK_CALL_ERRORS, counter_add
from fleets.dstack import DstackClient, DstackError, DstackSettings, FleetSettings, VmRunSettings
from fleets.dstack_pools.agent_files import agent_install_command, agent_package
from fleets.models import Backend, Pool, VMInstance
from fleets.policy import agent_silence_limit_s

# The settings of a dstack pool that are not Pool fields. `nodes_max` defaults to the pool's max_vms
# (the two caps must agree), `image` to settings.HIPJUDGE_DSTACK_IMAGE.
DSTACK_DEFAULTS: dict[str, Any] = {
    "backends": ["amddevcloud"],
    "gpu_memory": "192GB",
    "cpu_min": 2,
    "memory_min": "8GB",
    "disk_min": "100GB",
    "nodes_min": 0,
    "spot_policy": "auto",
    "max_price": None,
    "regions": [],
    # Hard cap on one VM's life: a run we lost track of cannot bill for more than this.
    "max_duration": "6h",
    # The agent sandboxes user code with bubblewrap, which needs namespaces a default container lacks;
    # the VM is ours alone, so the container may be privileged (the sandbox is the boundary).
    "privileged": True,
    # Run before the agent starts; a prebuilt image with these makes cold starts shorter.
    "setup_commands": [
        "command -v bwrap >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive "
        "apt-get install -y -qq bubblewrap >/dev/null)",
        agent_install_command(),
    ],
}
# FleetSettings fields read from config (the others come from Pool fields or are computed).
_FLEET_KEYS = ("backends", "gpu_memory", "cpu_min", "memory_min", "disk_min", "nodes_min", "nodes_max",
               "spot_policy", "max_price", "regions")
_VM_KEYS = ("image", "max_duration", "privileged", "setup_commands")
KNOWN_CONFIG_KEYS = frozenset(_FLEET_KEYS + _VM_KEYS)


class DstackNotConfiguredError(DstackError):
    def __init__(self, missing: list[str]) -> None:
        super().__init__(
            f"dstack is not configured: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set.",
            "Set DSTACK_SERVER_URL (your `dstack server` or https://sky.dstack.ai), DSTACK_TOKEN (the admin "
            "token `dstack server` prints at start, or your user token) and DSTACK_PROJECT (default main) "
            "in the environment of the web and worker processes.",
        )


class PoolConfigError(DstackError):
    """The pool's own settings are wrong (not a dstack pool, a bad value in its config)."""

    def __init__(self, pool: str, problem: str) -> None:
        super().__init__(f"Pool {pool}: {problem}.", "Fix it in the admin (Pools and VMs > Pools > the pool > config).")


# ---- the server --------------------------------------------------------------------------------
def dstack_settings() -> DstackSettings:
    url = getattr(settings, "DSTACK_SERVER_URL", None)
    token = getattr(settings, "DSTACK_TOKEN", None)
    missing = [name for name, value in (("DSTACK_SERVER_URL", url), ("DSTACK_TOKEN", token)) if not value]
    if missing:
        raise DstackNotConfiguredError(missing)
    try:
        return DstackSettings(server_url=str(url), token=str(token), project=settings.DSTACK_PROJECT,
                              timeout_s=settings.HIPJUDGE_DSTACK_TIMEOUT)
    except ValueError as exc:
        raise DstackNotConfiguredError([f"a valid DSTACK_SERVER_URL ({exc})"]) from None


def dstack_configured() -> bool:
    return bool(getattr(settings, "DSTACK_SERVER_URL", None) and getattr(settings, "DSTACK_TOKEN", None))


def _count_error(error: DstackError) -> None:
    counter_add(name=DSTACK_CALL_ERRORS, label=type(error).__name__)


def dstack_client(**overrides: Any) -> DstackClient:
    """A client for the configured server (no request is made until it is used); every failed call
    is counted by error class. `overrides` replace DstackSettings fields (e.g. a short timeout)."""
    return DstackClient(replace(dstack_settings(), **overrides), on_error=_count_error)


# ---- a pool's settings -------------------------------------------------------------------------
def pool_dstack_config(pool: Pool) -> dict[str, Any]:
    """The pool's effective dstack config: DSTACK_DEFAULTS overlaid with Pool.config."""
    config = dict(pool.config or {})
    unknown = sorted(set(config) - KNOWN_CONFIG_KEYS)
    if unknown:
        raise PoolConfigError(pool.name, f"unknown dstack setting(s) {unknown} in config; known: "
                                           f"{', '.join(sorted(KNOWN_CONFIG_KEYS))}")
    merged = {**DSTACK_DEFAULTS, "nodes_max": pool.max_vms,
              "image": getattr(settings, "HIPJUDGE_DSTACK_IMAGE", None) or "", **config}
    return merged


def idle_duration(seconds: int) -> str:
    """dstack's duration string for an idle timeout ("10m", "90s")."""
    return f"{seconds // 60}m" if seconds % 60 == 0 else f"{seconds}s"


def dstack_fleet_settings(pool: Pool) -> FleetSettings:
    """The backend-fleet settings of a dstack pool (validated by dstack's own models)."""
    if pool.backend != Backend.DSTACK:
        raise PoolConfigError(pool.name, f"it uses the {pool.backend} backend, not dstack")
    config = pool_dstack_config(pool)
    values: dict[str, Any] = {key: config[key] for key in _FLEET_KEYS}
    values.update(name=pool.name, gpu_name=pool.gpu_name or "MI300X", gpu_count=pool.gpu_count or 1,
                  idle_duration=idle_duration(pool.idle_timeout_s))
    try:
        return FleetSettings.from_mapping(values)
    except (ValueError, TypeError) as exc:
        raise PoolConfigError(pool.name, str(exc)) from None


def vm_run_settings(vm: VMInstance) -> VmRunSettings:
    """The service run of one VM: its token goes to the run's env, never to a log."""
    pool = vm.pool
    config = pool_dstack_config(pool)
    if not config["image"]:
        raise PoolConfigError(pool.name, "no ROCm image is set: put a pinned image (name:tag@sha256:<digest>) "
                                           "in its config as `image`, or set HIPJUDGE_DSTACK_IMAGE")
    # With its platform gone, the agent stops itself and its run ends (agent.self_stop; the reconcile finds it).
    args = ["--device", pool.device, "--stop-after-silence", str(agent_silence_limit_s(pool=pool))]
    try:
        return VmRunSettings(
            fleet=dstack_fleet_settings(pool), vm_id=str(vm.pk), image=config["image"], agent_dir=agent_package(),
            agent_token=vm.token, max_duration=config["max_duration"], agent_args=tuple(args),
            privileged=bool(config["privileged"]), setup_commands=tuple(config["setup_commands"] or ()),
        )
    except (ValueError, TypeError) as exc:
        raise PoolConfigError(pool.name, str(exc)) from None

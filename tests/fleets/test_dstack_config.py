"""A dstack pool's settings from its Pool row, the agent package shipped to VMs, the errors when
something is missing, and billing's instance source."""

from __future__ import annotations

from typing import Any

import pytest

from billing.reconcile import DstackInstanceSource, dstack_source, pools_reconcile
from fleets.backends import ProvisionError
from fleets.dstack import AGENT_TOKEN_ENV, vm_service_config, vm_service_configuration
from fleets.dstack_pools.agent_files import AGENT_SIZE_LIMIT, agent_package
from fleets.dstack_pools.backend import DstackBackend
from fleets.dstack_pools.config import (
    PoolConfigError,
    dstack_fleet_settings,
    idle_duration,
    vm_run_settings,
)
from fleets.dstack_pools.services import dstack_fleet_apply
from fleets.models import VMInstance, VMState
from tests.fleets.conftest import TEST_IMAGE
from tests.fleets.dstack.local_server import LocalDstack

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool(make_dstack_pool: Any, settings: Any) -> Any:
    settings.HIPJUDGE_DSTACK_IMAGE = TEST_IMAGE
    return make_dstack_pool(max_vms=3, backends=["hotaisle"])


def test_an_empty_config_is_one_mi300x_with_the_defaults(pool: Any) -> None:
    pool.config = {}
    settings = dstack_fleet_settings(pool)
    assert (settings.name, settings.backends, settings.gpu_name, settings.gpu_memory, settings.gpu_count) == (
        pool.name, ("amddevcloud",), "MI300X", "192GB", 1)
    assert (settings.nodes, settings.idle_duration, settings.spot_policy) == ("0..3", "10m", "auto")
    assert (settings.cpu_min, settings.memory_min, settings.disk_min) == (2, "8GB", "100GB")
    assert idle_duration(90) == "90s"
    assert idle_duration(1200) == "20m"


def test_the_vm_run_carries_the_token_only_where_dstack_needs_it(pool: Any) -> None:
    vm = VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, token="s3cret-agent-token")
    settings = vm_run_settings(vm)
    shown = vm_service_config(settings)
    assert "s3cret-agent-token" not in str(shown)
    assert shown["env"][AGENT_TOKEN_ENV] == "***"
    assert vm_service_configuration(settings).env.as_dict()[AGENT_TOKEN_ENV] == "s3cret-agent-token"
    assert shown["name"] == f"hj-vm-{vm.pk.hex[:8]}"
    assert shown["fleets"] == [pool.name]
    assert shown["privileged"] is True
    assert shown["auth"] is True
    assert shown["max_duration"] == "6h"
    assert shown["image"] == TEST_IMAGE
    assert shown["resources"]["gpu"]["name"] == "MI300X"
    commands = shown["commands"]
    assert "bwrap" in commands[0]
    assert "numpy" in commands[1]  # setup first, then the agent
    assert commands[-1].startswith("exec python3 -m agent serve")
    # With its platform gone the agent stops itself, its run ends, and the reconcile finds the VM gone.
    assert commands[-1].endswith("--device hip --stop-after-silence 1200")  # twice the pool's 600 s idle timeout
    assert shown["files"] == [f"{agent_package()}:/opt/hipjudge/agent"]


def test_the_agent_package_has_no_caches_and_fits_dstacks_limit() -> None:
    package = agent_package()
    files = [p for p in package.rglob("*") if p.is_file()]
    assert package.name == "agent"
    assert (package / "server.py").is_file()
    assert (package / "__main__.py").is_file()
    assert not any("__pycache__" in p.parts or p.suffix == ".pyc" for p in files)
    assert sum(p.stat().st_size for p in files) <= AGENT_SIZE_LIMIT
    assert agent_package() == package  # content-addressed: reused, not copied again


def test_config_mistakes_say_what_to_fix(pool: Any, settings: Any) -> None:
    pool.config = {"backends": ["amddevcloud"], "gpu_mem": "192GB"}
    with pytest.raises(PoolConfigError, match=r"unknown dstack setting\(s\) \['gpu_mem'\].*Fix it in the admin"):
        dstack_fleet_settings(pool)
    pool.config = {"nodes_min": 5}
    with pytest.raises(PoolConfigError, match="nodes must satisfy"):
        dstack_fleet_settings(pool)
    settings.HIPJUDGE_DSTACK_IMAGE = None
    pool.config = {}
    with pytest.raises(PoolConfigError, match="no ROCm image is set.*HIPJUDGE_DSTACK_IMAGE"):
        vm_run_settings(VMInstance(pool=pool, token="t"))


def test_provisioning_without_dstack_settings_fails_with_the_fix(pool: Any, settings: Any) -> None:
    settings.DSTACK_SERVER_URL, settings.DSTACK_TOKEN = None, "a-token"
    vm = VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, token="t" * 20)
    with pytest.raises(ProvisionError, match="DSTACK_SERVER_URL is not set.*DSTACK_TOKEN"):
        DstackBackend().provision(vm)


def test_billing_gets_dstacks_instances_only_when_dstack_is_configured(pool: Any, local_pool: Any,
                                                                       settings: Any) -> None:
    settings.DSTACK_SERVER_URL = None
    assert dstack_source(pool) is None
    assert pools_reconcile() == {"pools": 0, "corrections": 0}  # the default source, unconfigured
    settings.DSTACK_SERVER_URL, settings.DSTACK_TOKEN = "http://127.0.0.1:9", "t"
    assert isinstance(dstack_source(pool), DstackInstanceSource)
    assert dstack_source(local_pool) is None


def test_reconciliation_reads_a_real_dstack_fleet(on_dstack: LocalDstack, pool: Any) -> None:
    dstack_fleet_apply(pool=pool, require_backends=False)
    assert pools_reconcile() == {"pools": 1, "corrections": 0}  # no instances, nothing booked

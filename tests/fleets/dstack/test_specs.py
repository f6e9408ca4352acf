"""The generated backend-fleet and VM service configurations, validated by dstack's own models."""

from __future__ import annotations

import dataclasses
import re
import uuid
from pathlib import Path

import pytest
import yaml
from dstack._internal.core.models.configurations import ServiceConfiguration
from dstack._internal.core.models.fleets import FleetConfiguration

from fleets.dstack import (
    AGENT_TOKEN_ENV,
    FleetSettings,
    VmRunSettings,
    fleet_config,
    fleet_configuration,
    fleet_yaml,
    vm_run_name,
    vm_service_config,
    vm_service_configuration,
    vm_service_yaml,
)
from tests.fleets.dstack.factories import IMAGE

TOKEN = "agent-secret-4f1c9a"


def vm(**overrides: object) -> VmRunSettings:
    values: dict[str, object] = {
        "fleet": FleetSettings(name="mi300x", nodes_max=2),
        "vm_id": "3f2a9c1e-0d7b-4c55-9b1a-2a7c5e0f9d11",
        "image": IMAGE,
        "agent_dir": Path("/srv/hipjudge/agent"),
        "agent_token": TOKEN,
    }
    values.update(overrides)
    return VmRunSettings(**values)  # type: ignore[arg-type]


def test_fleet_config_has_the_backend_fleet_shape_and_never_ssh_config() -> None:
    config = fleet_config(FleetSettings(name="mi300x", nodes_max=3))
    assert config == {
        "type": "fleet",
        "name": "mi300x",
        "nodes": "0..3",
        "backends": ["amddevcloud"],
        "resources": {
            "gpu": {"name": "MI300X", "memory": "192GB", "count": 1},
            "cpu": "2..",
            "memory": "8GB..",
            "disk": "100GB..",
        },
        "idle_duration": "10m",
        "spot_policy": "auto",
    }
    assert "ssh_config" not in fleet_yaml(FleetSettings(name="mi300x"))
    parsed = FleetConfiguration.model_validate(yaml.safe_load(fleet_yaml(FleetSettings(name="mi300x"))))
    assert parsed.ssh_config is None
    assert parsed.nodes is not None
    assert parsed.nodes.max == 1
    assert parsed.idle_duration == 600


def test_fleet_config_adds_optional_limits_only_when_set() -> None:
    conf = fleet_configuration(
        FleetSettings(name="hot", backends=("hotaisle", "amddevcloud"), max_price=2.5, regions=("us-1",))
    )
    assert conf.max_price == 2.5
    assert conf.regions == ["us-1"]
    assert [b.value for b in conf.backends or []] == ["hotaisle", "amddevcloud"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"name": "Bad_Name"}, "must match"),
        ({"backends": ()}, "at least one backend"),
        ({"backends": ("amdcloud",)}, "unknown dstack backend"),
        ({"spot_policy": "sometimes"}, "spot_policy"),
        ({"nodes_min": 2, "nodes_max": 1}, "0 <= min <= max"),
        ({"idle_duration": "10 parsecs"}, "idle_duration"),
        ({"memory_min": "lots"}, "resources"),
    ],
)
def test_fleet_settings_refuse_bad_values(overrides: dict[str, object], message: str) -> None:
    values: dict[str, object] = {"name": "pool"}
    values.update(overrides)
    with pytest.raises(ValueError, match=message):
        FleetSettings(**values)  # type: ignore[arg-type]


def test_fleet_settings_round_trip_through_stored_json() -> None:
    settings = FleetSettings(name="pool", backends=("amddevcloud", "hotaisle"), nodes_max=4)
    stored = yaml.safe_load(yaml.safe_dump(dataclasses.asdict(settings)))
    assert FleetSettings.from_mapping(stored) == settings
    with pytest.raises(ValueError, match="unknown fleet setting"):
        FleetSettings.from_mapping({"name": "pool", "ssh_config": {}})


def test_vm_service_config_starts_the_agent_on_the_fleet() -> None:
    settings = vm()
    config = vm_service_config(settings)
    assert config["type"] == "service"
    assert config["name"] == "hj-vm-3f2a9c1e"
    assert config["image"] == IMAGE
    assert config["port"] == 8000
    assert config["auth"] is True
    assert config["gateway"] is False
    assert config["fleets"] == ["mi300x"]
    assert (config["idle_duration"], config["spot_policy"], config["max_duration"]) == ("10m", "auto", "6h")
    assert config["files"] == ["/srv/hipjudge/agent:/opt/hipjudge/agent"]
    assert config["commands"][-1] == (
        "exec python3 -m agent serve --host 0.0.0.0 --port 8000 --token-file /opt/hipjudge/agent.token"
    )
    assert f"unset {AGENT_TOKEN_ENV}" in config["commands"]
    # What keeps the server from asking an image registry before scheduling (and tests offline).
    assert config["user"] == "root"
    assert config["commands"]
    conf = vm_service_configuration(settings)
    assert isinstance(conf, ServiceConfiguration)
    assert conf.resources.cpu.arch is not None
    assert conf.resources.cpu.arch.value == "x86"
    assert conf.max_duration == 6 * 3600
    assert conf.idle_duration == 600
    assert conf.port.container_port == 8000


def test_vm_resources_match_the_fleet() -> None:
    settings = vm(fleet=FleetSettings(name="big", gpu_count=8, cpu_min=64, memory_min="1TB", disk_min="2TB"))
    fleet_res = fleet_configuration(settings.fleet).resources
    run_res = vm_service_configuration(settings).resources
    assert fleet_res is not None
    assert run_res.gpu == fleet_res.gpu
    assert run_res.cpu.count == fleet_res.cpu.count
    assert (run_res.memory, run_res.disk) == (fleet_res.memory, fleet_res.disk)


def test_the_agent_token_stays_out_of_reprs_yaml_and_errors() -> None:
    settings = vm()
    assert TOKEN not in repr(settings)
    assert TOKEN not in vm_service_yaml(settings)
    assert vm_service_config(settings)["env"] == {AGENT_TOKEN_ENV: "***"}
    assert vm_service_configuration(settings).env.as_dict() == {AGENT_TOKEN_ENV: TOKEN}
    with pytest.raises(ValueError) as excinfo:
        vm_service_configuration(vm(max_duration="forever-ish"))
    assert TOKEN not in str(excinfo.value)
    assert excinfo.value.__cause__ is None


@pytest.mark.parametrize(
    "image",
    ["rocm/dev-ubuntu-22.04:6.2.4", "rocm/dev-ubuntu-22.04@sha256:" + "a" * 64, "rocm/x:latest@sha256:abc"],
)
def test_the_image_must_be_pinned_by_tag_and_digest(image: str) -> None:
    with pytest.raises(ValueError, match="pinned"):
        vm(image=image)


def test_a_registry_with_a_port_is_a_valid_pinned_image() -> None:
    assert vm(image="registry.local:5000/rocm/dev:6.2@sha256:" + "b" * 64).image.startswith("registry")


def test_vm_run_names_follow_dstacks_rule() -> None:
    vm_id = uuid.uuid4()
    assert vm_run_name(vm_id) == f"hj-vm-{vm_id.hex[:8]}"
    assert vm_run_name("VM_42-abc") == "hj-vm-vm42abc"
    for name in (vm_run_name(uuid.uuid4()), vm_run_name("x" * 80)):
        assert re.match(r"^[a-z][a-z0-9-]{1,40}$", name)
    with pytest.raises(ValueError):
        vm_run_name("---")


def test_vm_settings_refuse_relative_paths_and_empty_tokens() -> None:
    with pytest.raises(ValueError, match="absolute"):
        vm(agent_dir=Path("agent"))
    with pytest.raises(ValueError, match="empty"):
        vm(agent_token="")

"""The happy path a local dstack server cannot show (no cloud, no Docker here): the VM run reaches
`running` and its agent answers through the service proxy. Uses the in-process stand-in built from
dstack's model classes; everything up to the HTTP wire is the real dstack client."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests

from fleets.dstack import (
    FleetSettings,
    Phase,
    RunOutcome,
    VmRunSettings,
    find_run,
    list_vm_runs,
    poll_run,
    stop_run,
    submit_vm_run,
    wait_for_run,
)
from tests.fleets.dstack.factories import vm_settings as make_vm_settings
from tests.fleets.dstack.standin import AGENT_HEALTH, DstackStandIn

MakeVm = Callable[..., VmRunSettings]


@pytest.fixture
def standin() -> Iterator[DstackStandIn]:
    with DstackStandIn() as server:
        yield server


@pytest.fixture
def vm_settings(agent_dir: Path) -> MakeVm:
    return functools.partial(make_vm_settings, agent_dir=agent_dir)


def test_the_vm_reaches_running_and_its_agent_answers_through_the_proxy(
    standin: DstackStandIn, vm_settings: MakeVm
) -> None:
    client = standin.client()
    vm = vm_settings(name="pool", token="agent-tok-1")
    submitted = submit_vm_run(client, vm)
    assert (submitted.offers, submitted.max_price) == (1, 1.99)
    assert "/api/files/upload_archive" in standin.calls  # the agent package went with `files:`
    phases: list[str] = []

    def running(outcome: RunOutcome) -> bool:
        phases.append(outcome.message)
        return outcome.phase is Phase.RUNNING

    outcome = wait_for_run(client, submitted.id, until=running, timeout_s=5, interval_s=0.01)
    assert outcome.phase is Phase.RUNNING
    assert phases == [
        "The VM is queued in dstack, waiting for an instance.",
        "dstack is starting an instance for the VM.",
        "dstack is pulling the image for the VM.",
        "The VM is running.",
    ]
    health_url = submitted.base_url + "v1/health"
    answer = requests.get(
        health_url, headers={**client.auth_headers(), "X-Agent-Token": "agent-tok-1"}, timeout=5
    )
    assert (answer.status_code, answer.json()) == (200, AGENT_HEALTH)
    assert requests.get(health_url, headers={"X-Agent-Token": "agent-tok-1"}, timeout=5).status_code == 403
    wrong = {**client.auth_headers(), "X-Agent-Token": "nope"}
    assert requests.get(health_url, headers=wrong, timeout=5).status_code == 401


def test_tear_down_stops_the_run_and_terminating_is_not_final(
    standin: DstackStandIn, vm_settings: MakeVm
) -> None:
    client = standin.client()
    submitted = submit_vm_run(client, vm_settings())
    wait_for_run(client, submitted.id, until=lambda o: o.phase is Phase.RUNNING, timeout_s=5, interval_s=0.01)
    stop_run(client, submitted.name)
    stopping = poll_run(client, submitted.id)
    assert (stopping.phase, stopping.final, stopping.run_status) == (Phase.STOPPING, False, "terminating")
    stopped = poll_run(client, submitted.id)
    assert (stopped.phase, stopped.final, stopped.run_finished) == (Phase.STOPPED, True, True)
    assert list_vm_runs(client) == []
    assert [r.name for r in list_vm_runs(client, active_only=False)] == [submitted.name]


def test_polling_by_id_gets_fresh_data_and_survives_name_reuse(
    standin: DstackStandIn, vm_settings: MakeVm
) -> None:
    client = standin.client()
    settings = vm_settings(vm_id="11111111-2222-4333-8444-555555555555")
    first = submit_vm_run(client, settings)
    # Every poll is a new request: the state moves on although we hold no new object.
    seen = [poll_run(client, first.id).phase for _ in range(4)]
    assert seen == [Phase.PENDING, Phase.PROVISIONING, Phase.PROVISIONING, Phase.RUNNING]
    assert standin.calls.count(f"/api/project/{standin.project}/runs/get") == 4
    stop_run(client, first.name)
    poll_run(client, first.id), poll_run(client, first.id)
    # The same name is submitted again (the VM row was retried): by id, each run stays itself.
    second = submit_vm_run(client, settings)
    assert second.name == first.name
    assert second.id != first.id
    assert poll_run(client, first.id).phase is Phase.STOPPED
    assert poll_run(client, second.id).phase is Phase.PENDING
    latest = find_run(client, first.name)
    assert latest is not None
    assert str(latest.id) == second.id


def test_the_fleet_settings_shape_the_run_the_stand_in_receives(
    standin: DstackStandIn, vm_settings: MakeVm
) -> None:
    client = standin.client()
    vm = vm_settings(name="mi300x")
    submit_vm_run(client, vm)
    run = find_run(client, vm.run_name)
    assert run is not None
    conf = run.run_spec.configuration
    assert [f if isinstance(f, str) else f.name for f in conf.fleets or []] == ["mi300x"]
    assert conf.auth is True
    assert conf.port.container_port == 8000
    assert FleetSettings(name="mi300x").gpu_name in (conf.resources.gpu.name or [])

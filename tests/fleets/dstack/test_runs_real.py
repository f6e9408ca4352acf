"""VM service runs on a real local dstack server: a run that ends in no capacity, a run that stays
`submitted` while background processing is off, stopping an orphan, listing ours."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fleets.dstack import (
    DstackClient,
    DstackRequestError,
    FailureKind,
    FleetSettings,
    NoCapacityError,
    Phase,
    RunMissingError,
    RunOutcome,
    VmRunSettings,
    apply_fleet,
    find_run,
    get_run,
    list_vm_runs,
    poll_run,
    stop_run,
    submit_vm_run,
    wait_for_run,
)
from tests.fleets.dstack.helpers import observe_run

MakeFleet = Callable[..., FleetSettings]
MakeVm = Callable[..., VmRunSettings]


@pytest.fixture
def fleet(dstack: DstackClient, make_fleet_settings: MakeFleet) -> FleetSettings:
    settings = make_fleet_settings()
    apply_fleet(dstack, settings, require_backends=False)
    return settings


@pytest.fixture
def frozen_fleet(dstack_frozen: DstackClient, make_fleet_settings: MakeFleet) -> FleetSettings:
    settings = make_fleet_settings()
    apply_fleet(dstack_frozen, settings, require_backends=False)
    return settings


def test_a_vm_run_with_no_capacity_fails_with_the_users_sentence(
    dstack: DstackClient, fleet: FleetSettings, make_vm_settings: MakeVm
) -> None:
    vm = make_vm_settings(fleet)
    submitted = submit_vm_run(dstack, vm)
    assert submitted.name == vm.run_name
    assert submitted.status == "submitted"
    assert submitted.offers == 0
    assert submitted.base_url == f"{dstack.server_url}/proxy/services/main/{vm.run_name}/"
    seen: list[str] = []

    def until_final(outcome: RunOutcome) -> bool:
        seen.append(f"{outcome.run_status}/{outcome.job_status}")
        return outcome.final

    outcome = wait_for_run(
        dstack, submitted.id, until=until_final, timeout_s=90, interval_s=1, backends=fleet.backends
    )
    assert outcome.phase is Phase.FAILED, seen
    assert outcome.failure is FailureKind.NO_CAPACITY, seen
    assert outcome.termination_reason == "failed_to_start_due_to_no_capacity"
    assert seen[-1].endswith("/failed"), seen  # decided by the job (the run typically lags)
    assert outcome.message.startswith("No MI300X capacity on amddevcloud right now")
    # Our verdict comes from the job, usually while the run itself still says submitted or
    # terminating; dstack's run then ends `failed` too.
    finished = wait_for_run(dstack, submitted.id, until=lambda o: o.run_finished, timeout_s=90, interval_s=2)
    assert (finished.run_status, finished.phase, finished.failure) == (
        "failed",
        Phase.FAILED,
        FailureKind.NO_CAPACITY,
    )
    # The submit-time answer is stale; only a poll by id tells the truth.
    assert submitted.status == "submitted"
    assert get_run(dstack, submitted.id).status.value == "failed"
    names_all = {r.name for r in list_vm_runs(dstack, active_only=False)}
    names_active = {r.name for r in list_vm_runs(dstack)}
    assert vm.run_name in names_all
    assert vm.run_name not in names_active
    # Once finished, the name is free: a new submission soft-deletes the old run, which stays
    # readable by id. This is why runs are polled by id, never by name.
    again = submit_vm_run(dstack, vm)
    assert again.id != submitted.id
    assert get_run(dstack, submitted.id).deleted is True
    assert poll_run(dstack, submitted.id).failure is FailureKind.NO_CAPACITY
    assert [r.id for r in list_vm_runs(dstack, active_only=False) if r.name == vm.run_name] == [again.id]
    stop_run(dstack, vm.run_name)


def test_the_service_url_is_the_servers_proxy_path(
    dstack_frozen: DstackClient, frozen_fleet: FleetSettings, make_vm_settings: MakeVm
) -> None:
    vm = make_vm_settings(frozen_fleet)
    submitted = submit_vm_run(dstack_frozen, vm)
    run = get_run(dstack_frozen, submitted.id)
    assert run.service is not None
    assert submitted.base_url == dstack_frozen.server_url + run.service.url
    # The submitted job carries the token in env only, and the commands that start the agent.
    job_spec = run.jobs[0].job_spec
    assert job_spec.env == {"HIPJUDGE_AGENT_TOKEN": vm.agent_token}
    assert vm.agent_token not in " ".join(job_spec.commands)
    assert "python3 -m agent serve --host 0.0.0.0 --port 8000" in job_spec.commands[-1]
    assert [a.path for a in run.run_spec.file_archives] == ["/opt/hipjudge/agent"]
    stop_run(dstack_frozen, vm.run_name)


def test_without_background_processing_a_run_stays_submitted(
    dstack_frozen: DstackClient, frozen_fleet: FleetSettings, make_vm_settings: MakeVm
) -> None:
    submitted = submit_vm_run(dstack_frozen, make_vm_settings(frozen_fleet))
    outcomes = observe_run(dstack_frozen, submitted.id, seconds=4, interval_s=1)
    assert len(outcomes) >= 2  # polled across the whole window (fewer polls on a loaded machine)
    assert {(o.phase, o.run_status) for o in outcomes} == {(Phase.PENDING, "submitted")}
    stop_run(dstack_frozen, submitted.name)


def test_it_refuses_to_submit_over_a_live_run_of_the_same_name(
    dstack_frozen: DstackClient, frozen_fleet: FleetSettings, make_vm_settings: MakeVm
) -> None:
    vm = make_vm_settings(frozen_fleet)
    submit_vm_run(dstack_frozen, vm)
    with pytest.raises(DstackRequestError, match="already exists"):
        submit_vm_run(dstack_frozen, vm)
    stop_run(dstack_frozen, vm.run_name)


def test_require_offers_refuses_before_submitting(
    dstack_frozen: DstackClient, frozen_fleet: FleetSettings, make_vm_settings: MakeVm
) -> None:
    vm = make_vm_settings(frozen_fleet)
    with pytest.raises(NoCapacityError, match="no MI300X capacity on amddevcloud right now"):
        submit_vm_run(dstack_frozen, vm, require_offers=True)
    assert find_run(dstack_frozen, vm.run_name) is None


def test_stopping_a_real_orphan_run(
    dstack_frozen: DstackClient, frozen_fleet: FleetSettings, make_vm_settings: MakeVm
) -> None:
    orphan = submit_vm_run(dstack_frozen, make_vm_settings(frozen_fleet))
    active = {r.name: r for r in list_vm_runs(dstack_frozen)}
    assert orphan.name in active
    assert active[orphan.name].fleet == frozen_fleet.name
    assert not active[orphan.name].finished
    stop_run(dstack_frozen, orphan.name)
    outcome = poll_run(dstack_frozen, orphan.id)
    # dstack has accepted the stop; without background processing it stays `terminating`,
    # which is not final: the instance (if any) is still being released.
    assert (outcome.phase, outcome.run_status, outcome.final) == (Phase.STOPPING, "terminating", False)
    assert get_run(dstack_frozen, orphan.id).termination_reason == "stopped_by_user"
    stop_run(dstack_frozen, orphan.name)  # stopping again is harmless
    stop_run(dstack_frozen, "hj-vm-neverexisted")  # and so is an unknown name


def test_unknown_runs(dstack: DstackClient) -> None:
    with pytest.raises(RunMissingError):
        get_run(dstack, "00000000-0000-4000-8000-000000000000")
    assert find_run(dstack, "hj-vm-00000000") is None

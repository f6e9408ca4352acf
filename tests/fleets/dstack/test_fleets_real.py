"""Backend fleets on a real local dstack server: plan creates nothing, apply creates and verifies,
verify finds differences, updates in place or refuses to recreate silently, delete is real."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from dstack._internal.core.errors import ServerClientError

from fleets.dstack import (
    BackendNotConfiguredError,
    DstackClient,
    FleetMissingError,
    FleetRecreateRequiredError,
    FleetSettings,
    apply_fleet,
    delete_fleet,
    get_fleet,
    list_fleet_instances,
    plan_fleet,
    verify_fleet,
)

MakeFleet = Callable[..., FleetSettings]


def fleet_names(client: DstackClient) -> set[str]:
    return {f.name for f in client.low.fleets.list(client.project)}


def test_plan_is_a_dry_run_that_creates_nothing(dstack: DstackClient, make_fleet_settings: MakeFleet) -> None:
    settings = make_fleet_settings(nodes_max=2)
    before = fleet_names(dstack)
    plan = plan_fleet(dstack, settings)
    assert plan.action == "create"
    assert plan.changes == ()
    assert plan.offers == 0
    assert plan.max_price is None  # no backend here, so no offer
    assert plan.yaml.startswith("type: fleet\n")
    assert "nodes: 0..2" in plan.yaml
    assert "ssh_config" not in plan.yaml
    assert plan.backends_not_configured == ("amddevcloud",)
    assert any("no MI300X capacity on amddevcloud right now" in w for w in plan.warnings)
    assert any("no backend amddevcloud configured" in w for w in plan.warnings)
    assert fleet_names(dstack) == before
    with pytest.raises(FleetMissingError, match=f"Create it with `manage.py fleet apply {settings.name}`"):
        get_fleet(dstack, settings.name)


def test_apply_refuses_backends_the_project_lacks(
    dstack: DstackClient, make_fleet_settings: MakeFleet
) -> None:
    settings = make_fleet_settings(backends=("amddevcloud", "hotaisle"))
    with pytest.raises(BackendNotConfiguredError) as excinfo:
        apply_fleet(dstack, settings)
    assert excinfo.value.missing == ("amddevcloud", "hotaisle")
    assert "configured: none" in str(excinfo.value)
    assert settings.name not in fleet_names(dstack)


def test_apply_creates_then_verifies_then_is_idempotent(
    dstack: DstackClient, make_fleet_settings: MakeFleet
) -> None:
    settings = make_fleet_settings(nodes_max=2)
    state = apply_fleet(dstack, settings, require_backends=False)
    assert (state.action, state.status, state.instances) == ("create", "active", 0)
    assert verify_fleet(dstack, settings) == []
    assert list_fleet_instances(dstack, settings.name) == []
    assert plan_fleet(dstack, settings).action == "none"
    again = apply_fleet(dstack, settings, require_backends=False)
    assert (again.action, again.id) == ("none", state.id)
    delete_fleet(dstack, settings.name, wait_s=0)  # cleanup: no need to wait


def test_verify_reports_each_difference(dstack: DstackClient, make_fleet_settings: MakeFleet) -> None:
    settings = make_fleet_settings()
    apply_fleet(dstack, settings, require_backends=False)
    changed = FleetSettings.from_mapping(
        {
            **settings.__dict__,
            "nodes_max": 3,
            "gpu_count": 8,
            "idle_duration": "20m",
            "backends": ["hotaisle"],
        }
    )
    differences = {d.field: d for d in verify_fleet(dstack, changed)}
    assert set(differences) == {
        "nodes",
        "backends",
        "idle_duration",
        "resources.gpu.count.min",
        "resources.gpu.count.max",
    }
    assert (differences["nodes"].expected, differences["nodes"].actual) == ("0..3", "0..1")
    assert str(differences["idle_duration"]) == "idle_duration: expected 1200, dstack has 600"
    plan = plan_fleet(dstack, changed)
    assert plan.action == "recreate"
    assert {c.field for c in plan.changes} == set(differences)
    delete_fleet(dstack, settings.name, wait_s=0)  # cleanup: no need to wait


def test_apply_updates_in_place_what_dstack_can_update(
    dstack: DstackClient, make_fleet_settings: MakeFleet
) -> None:
    settings = make_fleet_settings()
    created = apply_fleet(dstack, settings, require_backends=False)
    bigger = FleetSettings.from_mapping({**settings.__dict__, "nodes_max": 4, "spot_policy": "on-demand"})
    updated = apply_fleet(dstack, bigger, require_backends=False)
    assert (updated.action, updated.id) == ("update", created.id)
    assert verify_fleet(dstack, bigger) == []
    delete_fleet(dstack, settings.name, wait_s=0)  # cleanup: no need to wait


def test_apply_and_delete_wait_while_dstack_processes_the_fleet(
    dstack: DstackClient, make_fleet_settings: MakeFleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dstack refuses to change a fleet its background task holds (right after it was created, for one):
    apply and delete try again until it lets go, instead of failing the admin's action."""
    settings = make_fleet_settings()
    created = apply_fleet(dstack, settings, require_backends=False)
    refusals = {"apply_plan": 2, "delete": 2}
    api = type(dstack.low.fleets)  # a new object at each access: patch its class
    for name in refusals:
        real = getattr(api, name)

        def held_then_real(*args: object, _name: str = name, _real: Callable[..., object] = real) -> object:
            if refusals[_name]:
                refusals[_name] -= 1
                raise ServerClientError("Failed to update fleet: fleet is being processed currently. Try again later.")
            return _real(*args)

        monkeypatch.setattr(api, name, held_then_real)
    bigger = FleetSettings.from_mapping({**settings.__dict__, "nodes_max": 3})
    assert apply_fleet(dstack, bigger, require_backends=False).id == created.id
    assert delete_fleet(dstack, settings.name, wait_s=30) == "gone"
    assert refusals == {"apply_plan": 0, "delete": 0}


def test_apply_recreates_only_when_asked(dstack: DstackClient, make_fleet_settings: MakeFleet) -> None:
    settings = make_fleet_settings()
    created = apply_fleet(dstack, settings, require_backends=False)
    longer = FleetSettings.from_mapping({**settings.__dict__, "idle_duration": "30m"})
    with pytest.raises(FleetRecreateRequiredError) as excinfo:
        apply_fleet(dstack, longer, require_backends=False)
    assert excinfo.value.fields == ("idle_duration",)
    assert verify_fleet(dstack, settings) == []  # untouched
    recreated = apply_fleet(dstack, longer, recreate=True, require_backends=False, wait_s=60)
    assert recreated.action == "recreate"
    assert recreated.id != created.id
    assert verify_fleet(dstack, longer) == []
    delete_fleet(dstack, settings.name, wait_s=0)  # cleanup: no need to wait


def test_delete_waits_until_the_fleet_is_gone(dstack: DstackClient, make_fleet_settings: MakeFleet) -> None:
    settings = make_fleet_settings()
    apply_fleet(dstack, settings, require_backends=False)
    assert delete_fleet(dstack, settings.name, wait_s=60) == "gone"
    with pytest.raises(FleetMissingError):
        verify_fleet(dstack, settings)
    with pytest.raises(FleetMissingError):
        delete_fleet(dstack, settings.name)


def test_delete_returns_terminating_when_dstack_has_not_finished(
    dstack_frozen: DstackClient, make_fleet_settings: MakeFleet
) -> None:
    # Without background processing the fleet stays `terminating`: delete is asynchronous.
    settings = make_fleet_settings()
    apply_fleet(dstack_frozen, settings, require_backends=False)
    assert delete_fleet(dstack_frozen, settings.name, wait_s=1, poll_s=0.5) == "terminating"
    assert get_fleet(dstack_frozen, settings.name).status.value == "terminating"

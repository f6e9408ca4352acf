"""The fleets admin with dstack pools: pages render (pinned queries on the VM list), the dstack
actions plan / apply / verify / delete work against a real local dstack server with a confirmation
step, the instances page shows dstack beside our VMs, and VMs can be drained and stopped."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from billing.services import ledger_accrue
from fleets.dstack import FleetMissingError, get_fleet
from fleets.dstack_pools.config import dstack_client
from fleets.dstack_pools.services import dstack_fleet_apply
from fleets.models import VMInstance, VMState
from tests.fleets.conftest import StandInBackend
from tests.fleets.dstack.local_server import LocalDstack

CHANGELIST = "/admin/fleets/pool/"
VMS = "/admin/fleets/vminstance/"


def act(client: Any, action: str, pools: list[Any], **extra: str) -> str:
    data = {"action": action, "_selected_action": [str(p.pk) for p in pools], **extra}
    response = client.post(CHANGELIST, data, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def test_the_pool_pages_render_with_dstack_pools(admin_client: Any, make_dstack_pool: Any, local_pool: Any,
                                                  settings: Any) -> None:
    settings.DSTACK_SERVER_URL = None  # nothing here needs the server
    pool = make_dstack_pool(max_vms=2)
    html = admin_client.get(CHANGELIST).content.decode()
    assert pool.name in html
    assert "dstack: plan" in html
    assert "dstack instances and our VMs" in html
    html = admin_client.get(reverse("admin:fleets_pool_change", args=[pool.pk])).content.decode()
    assert "type: fleet" in html
    assert "nodes: 0..2" in html
    assert "idle_duration: 10m" in html
    assert "setup_commands" in html
    assert "&quot;spot_policy&quot;: &quot;auto&quot;" in html
    html = admin_client.get(reverse("admin:fleets_pool_change", args=[local_pool.pk])).content.decode()
    assert "dstack pools only" in html
    assert admin_client.get(reverse("admin:fleets_pool_add")).status_code == 200


def test_a_bad_dstack_config_shows_what_to_fix(admin_client: Any, make_dstack_pool: Any) -> None:
    pool = make_dstack_pool()
    pool.config = {**pool.config, "spot_policy": "sometimes"}
    pool.save()
    html = admin_client.get(reverse("admin:fleets_pool_change", args=[pool.pk])).content.decode()
    assert "spot_policy must be one of" in html
    assert "Fix it in the admin" in html


def test_plan_then_confirmed_apply_verify_and_delete(admin_client: Any, on_dstack: LocalDstack,
                                                     make_dstack_pool: Any, local_pool: Any) -> None:
    pool = make_dstack_pool()
    html = act(admin_client, "dstack_plan", [pool, local_pool])
    assert "dstack plan (dry run" in html
    assert f"dstack would create fleet {pool.name}" in html
    assert "type: fleet" in html
    assert "Offers now: 0" in html
    assert "no MI300X capacity on amddevcloud" in html
    assert "Skipped: pool local uses the local backend" in html
    assert 'name="action" value="dstack_apply"' in html
    assert "Yes, apply" in html
    with pytest.raises(FleetMissingError):
        get_fleet(dstack_client(), pool.name)

    # The project lacks amddevcloud: apply refuses with the fix (a real deployment has the backend).
    html = act(admin_client, "dstack_apply", [pool], confirm="yes")
    assert "has no backend amddevcloud configured" in html
    assert "project &gt; backends" in html
    dstack_fleet_apply(pool=pool, require_backends=False)
    html = act(admin_client, "dstack_verify", [pool])
    assert "In sync with dstack." in html
    pool.max_vms = 4
    pool.save()
    html = act(admin_client, "dstack_verify", [pool])
    assert "dstack&#x27;s fleet differs" in html
    assert "nodes: expected &#x27;0..4&#x27;" in html

    html = act(admin_client, "dstack_delete", [pool])
    assert "Delete dstack fleets?" in html
    assert 'value="dstack_delete"' in html
    assert get_fleet(dstack_client(), pool.name).status.value == "active"  # only asked so far
    html = act(admin_client, "dstack_delete", [pool], confirm="yes")
    assert f"dstack fleet {pool.name} deleted" in html or "is terminating" in html
    pool.refresh_from_db()
    assert not pool.enabled


def test_errors_show_on_the_page_not_as_a_crash(admin_client: Any, make_dstack_pool: Any, settings: Any) -> None:
    settings.DSTACK_SERVER_URL, settings.DSTACK_TOKEN = None, None
    pool = make_dstack_pool()
    html = act(admin_client, "dstack_plan", [pool])
    assert "dstack is not configured: DSTACK_SERVER_URL, DSTACK_TOKEN are not set" in html
    html = admin_client.get(reverse("admin:fleets_pool_dstack")).content.decode()
    assert "dstack is not configured" in html
    assert pool.name in html


def test_the_instances_page_shows_dstack_beside_our_vms(admin_client: Any, on_dstack: LocalDstack,
                                                        make_dstack_pool: Any) -> None:
    pool = make_dstack_pool()
    dstack_fleet_apply(pool=pool, require_backends=False)
    vm = VMInstance.objects.create(pool=pool, state=VMState.WARM, handle="hj-vm-abcdef12")
    html = admin_client.get(reverse("admin:fleets_pool_dstack")).content.decode()
    assert pool.name in html
    assert "dstack instances" in html
    assert "hj-vm-abcdef12" in html
    assert str(vm.pk)[:8] in html
    assert "errornote" not in html


def test_the_vm_list_shows_state_times_cost_run_and_submission(admin_client: Any, make_dstack_pool: Any,
                                                               django_assert_max_num_queries: Any) -> None:
    pool = make_dstack_pool()
    now = timezone.now()
    warm = VMInstance.objects.create(pool=pool, state=VMState.WARM, handle="hj-vm-0000aaaa",
                                     ready_at=now, last_used_at=now, agent_info={"price_per_hour": "1.99"})
    VMInstance.objects.filter(pk=warm.pk).update(created_at=now - timezone.timedelta(minutes=30))
    ledger_accrue(vm_id=warm.pk)
    job = "3f2b9c4e-1111-4222-8333-444455556666"
    VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref=job, handle="hj-vm-0000bbbb")
    for _ in range(5):
        VMInstance.objects.create(pool=pool, state=VMState.STOPPED)
    with django_assert_max_num_queries(12):  # one cost query for the page, not one per VM
        html = admin_client.get(VMS).content.decode()
    # 30 min provisioning at dstack's 1.99 USD/h, booked at the state change.
    assert "hj-vm-0000aaaa" in html
    assert "30 min" in html
    assert "$1.00" in html
    assert reverse("admin:submissions_submission_change", args=[job]) in html
    assert "Drain: stop warm VMs now" in html
    assert "Stop now" in html


def test_drain_and_stop_now(admin_client: Any, admin_user: Any, make_dstack_pool: Any,
                            backend: StandInBackend) -> None:
    pool = make_dstack_pool()
    warm = VMInstance.objects.create(pool=pool, state=VMState.WARM)
    busy = VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="job-1", token="agent-s3cret-xyz")
    response = admin_client.post(VMS, {"action": "drain", "_selected_action": [str(warm.pk), str(busy.pk)]},
                                  follow=True)
    assert "Stopped 1 VM(s); 1 will stop after their job" in response.content.decode()
    warm.refresh_from_db()
    busy.refresh_from_db()
    assert warm.state == VMState.STOPPED
    assert busy.state == VMState.DRAINING
    assert busy.job_ref == "job-1"
    assert backend.stopped == [str(warm.pk)]

    response = admin_client.post(VMS, {"action": "stop_now", "_selected_action": [str(busy.pk)]}, follow=True)
    assert "Stopped 1 VM(s)" in response.content.decode()
    busy.refresh_from_db()
    assert busy.state == VMState.FAILED
    assert busy.state_reason == f"Stopped by {admin_user.username} while in use."
    assert backend.stopped == [str(warm.pk), str(busy.pk)]
    page = admin_client.get(reverse("admin:fleets_vminstance_change", args=[busy.pk]))
    assert page.status_code == 200
    assert "agent-s3cret-xyz" not in page.content.decode()

"""Staff do only what their permissions allow (security review L1): view-only staff cannot stop or
drain VMs, apply or delete dstack fleets, or cancel submissions; the cost dashboard, the dstack
instances page and GET /api/v1/metrics need a permission, not just is_staff."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from fleets.dstack_pools.services import pool_dstack_ensure
from fleets.models import VMInstance, VMState
from submissions.services import submission_create
from tests.conftest import read_source

pytestmark = pytest.mark.django_db


def staff_with(make_user: Any, name: str, *codenames: str) -> Client:
    user = make_user(name, staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def viewer(make_user: Any) -> Client:
    return staff_with(make_user, "viewer", "view_pool", "view_vminstance", "view_submission")


@pytest.fixture
def calls(monkeypatch: Any) -> list[str]:
    """The services behind the admin actions, recorded instead of run."""
    made: list[str] = []
    def recorder(name: str) -> Any:
        return lambda *args, **kwargs: made.append(name) or True

    for target in ("fleets.admin.vm_stop_now", "fleets.admin.vm_drain", "web.admin.submission_cancel",
                   "fleets.dstack_pools.services.dstack_fleet_apply",
                   "fleets.dstack_pools.services.dstack_fleet_delete"):
        monkeypatch.setattr(target, recorder(target.rsplit(".", 1)[1]))
    return made


def act(client: Client, url: str, action: str, pk: Any) -> None:
    client.post(url, {"action": action, "_selected_action": [str(pk)], "confirm": "yes"})


def test_view_only_staff_cannot_run_the_actions_that_change_things(
        viewer: Client, calls: list[str], local_pool: Any, problems_loaded: Any,
        owner: Any, queued_tasks: Any, settings: Any) -> None:
    settings.DSTACK_SERVER_URL = None
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.WARM, token="t")
    act(viewer, "/admin/fleets/vminstance/", "stop_now", vm.pk)
    act(viewer, "/admin/fleets/vminstance/", "drain", vm.pk)
    pool, _ = pool_dstack_ensure(name="gpu", backends=["amddevcloud"])
    act(viewer, "/admin/fleets/pool/", "dstack_apply", pool.pk)
    act(viewer, "/admin/fleets/pool/", "dstack_delete", pool.pk)
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    act(viewer, "/admin/submissions/submission/", "cancel", submission.pk)
    assert calls == []
    assert "Stop now" not in viewer.get("/admin/fleets/vminstance/").content.decode()


def test_staff_with_the_change_permission_can(make_user: Any, calls: list[str], local_pool: Any) -> None:
    operator = staff_with(make_user, "operator", "view_vminstance", "change_vminstance")
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.WARM, token="t")
    act(operator, "/admin/fleets/vminstance/", "stop_now", vm.pk)
    assert calls == ["vm_stop_now"]


@pytest.mark.parametrize(("url", "codename"), [
    ("/admin/billing/ledgerentry/dashboard/", "view_ledgerentry"),
    ("/admin/fleets/pool/dstack/", "view_pool"),
])
def test_the_custom_admin_pages_need_a_permission(make_user: Any, url: str, codename: str, settings: Any) -> None:
    settings.DSTACK_SERVER_URL = None
    assert staff_with(make_user, "bare").get(url).status_code == 403
    assert staff_with(make_user, "allowed", codename).get(url).status_code == 200

"""`manage.py fleet init|plan|apply|verify|delete|instances` against a real local dstack server, and
the errors staff get when dstack is missing, unreachable, or refuses the token."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from fleets.dstack import get_fleet
from fleets.dstack_pools.config import dstack_client
from fleets.models import Pool, VMInstance, VMState
from tests.fleets.conftest import TEST_IMAGE
from tests.fleets.dstack.local_server import LocalDstack, free_port

pytestmark = pytest.mark.django_db


def fleet(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("fleet", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def dstack_fleet_names() -> set[str]:
    client = dstack_client()
    return {f.name for f in client.low.fleets.list(client.project)}


def test_init_creates_a_mi300x_pool_with_the_defaults(settings: Any) -> None:
    settings.HIPJUDGE_DSTACK_IMAGE = None
    out, _ = fleet("init", "mi300x", "--backends", "amddevcloud,hotaisle", "--image", TEST_IMAGE, "--max-vms", "2")
    pool = Pool.objects.get(name="mi300x")
    assert (pool.backend, pool.device, pool.gpu_name, pool.gpu_count, pool.max_vms) == ("dstack", "hip", "MI300X", 1, 2)
    assert (str(pool.hourly_rate), pool.idle_timeout_s, pool.provision_timeout_s) == ("1.990000", 600, 900)
    assert pool.config == {"backends": ["amddevcloud", "hotaisle"], "image": TEST_IMAGE}
    assert "created pool mi300x" in out
    assert "fleet plan mi300x" in out


def test_init_refuses_an_image_without_a_digest() -> None:
    with pytest.raises(CommandError, match="must be pinned by tag and digest"):
        fleet("init", "mi300x", "--image", "rocm/dev-ubuntu-22.04:6.2.4")
    assert not Pool.objects.filter(name="mi300x").exists()


def test_plan_apply_verify_delete_for_real(on_dstack: LocalDstack, make_dstack_pool: Any) -> None:
    pool = make_dstack_pool(max_vms=2)
    out, err = fleet("plan", pool.name)
    assert f"pool {pool.name} -> dstack fleet {pool.name}: create" in out
    assert "type: fleet" in out
    assert "nodes: 0..2" in out
    assert "- amddevcloud" in out
    assert "ssh_config" not in out
    assert "idle_duration: 10m" in out
    assert "spot_policy: auto" in out
    assert "name: MI300X" in out
    assert "offers now: 0" in out
    assert "backends configured: none" in out
    assert "no MI300X capacity on amddevcloud right now" in err
    assert "no backend amddevcloud configured" in err
    assert pool.name not in dstack_fleet_names()  # a dry run

    # The project has no amddevcloud backend: apply says so unless told this server is a test one.
    with pytest.raises(CommandError, match="has no backend amddevcloud configured"):
        fleet("apply", pool.name, "--yes")
    out, _ = fleet("apply", pool.name, "--yes", "--allow-missing-backends")
    assert "applied (create)" in out
    assert "is active" in out
    assert "matches the pool's settings" in out
    assert pool.name in dstack_fleet_names()

    out, _ = fleet("verify", pool.name)
    assert "matches the pool's settings" in out
    pool.max_vms = 3  # dstack's nodes no longer agree
    pool.save()
    with pytest.raises(CommandError, match="differs from the pool's settings") as excinfo:
        fleet("verify", pool.name)
    assert "fleet apply" in str(excinfo.value)
    out, _ = fleet("apply", pool.name, "--yes", "--allow-missing-backends")
    assert "applied (update)" in out
    fleet("verify", pool.name)

    out, _ = fleet("instances", pool.name)
    assert "no instances" in out

    out, _ = fleet("delete", pool.name, "--yes")
    assert "deleted" in out or "terminating" in out
    pool.refresh_from_db()
    assert not pool.enabled  # no submissions to a pool without a dstack fleet
    assert pool.name not in dstack_fleet_names() or get_fleet(dstack_client(), pool.name).status.value != "active"
    with pytest.raises(CommandError, match=f"does not exist.*fleet apply {pool.name}"):
        fleet("verify", pool.name)


def test_apply_and_delete_need_yes_without_a_terminal(on_dstack: LocalDstack, make_dstack_pool: Any) -> None:
    pool = make_dstack_pool()
    with pytest.raises(CommandError, match="Pass --yes"):
        fleet("apply", pool.name, "--allow-missing-backends")
    assert pool.name not in dstack_fleet_names()


def test_delete_refuses_while_a_vm_is_busy(on_dstack: LocalDstack, make_dstack_pool: Any) -> None:
    pool = make_dstack_pool()
    fleet("apply", pool.name, "--yes", "--allow-missing-backends")
    VMInstance.objects.create(pool=pool, state=VMState.BUSY, job_ref="job-1")
    with pytest.raises(CommandError, match="1 VM\\(s\\) starting or serving a submission.*Drain them first"):
        fleet("delete", pool.name, "--yes")
    assert pool.name in dstack_fleet_names()
    pool.refresh_from_db()
    assert pool.enabled  # refused before anything changed


def test_it_says_which_settings_are_missing(settings: Any, make_dstack_pool: Any) -> None:
    settings.DSTACK_SERVER_URL, settings.DSTACK_TOKEN = None, None
    pool = make_dstack_pool()
    with pytest.raises(CommandError, match="DSTACK_SERVER_URL, DSTACK_TOKEN are not set.*DSTACK_PROJECT"):
        fleet("plan", pool.name)


def test_an_unreachable_server_is_named(settings: Any, make_dstack_pool: Any) -> None:
    settings.DSTACK_SERVER_URL, settings.DSTACK_TOKEN = f"http://127.0.0.1:{free_port()}", "t"
    settings.HIPJUDGE_DSTACK_TIMEOUT = 2.0
    pool = make_dstack_pool()
    with pytest.raises(CommandError, match="is unreachable.*Check that `dstack server` is running"):
        fleet("plan", pool.name)


def test_a_bad_token_is_named(on_dstack: LocalDstack, settings: Any, make_dstack_pool: Any) -> None:
    settings.DSTACK_TOKEN = "not-the-token"
    pool = make_dstack_pool()
    with pytest.raises(CommandError, match="rejected the token"):
        fleet("plan", pool.name)


def test_a_missing_project_is_named(on_dstack: LocalDstack, settings: Any, make_dstack_pool: Any) -> None:
    settings.DSTACK_PROJECT = "nope"
    pool = make_dstack_pool()
    with pytest.raises(CommandError, match="project 'nope' does not exist"):
        fleet("plan", pool.name)


def test_a_local_pool_is_not_managed_here(local_pool: Any) -> None:
    with pytest.raises(CommandError, match="uses the local backend, not dstack"):
        fleet("plan", local_pool.name)


def test_an_unknown_pool_says_how_to_create_it() -> None:
    with pytest.raises(CommandError, match="fleet init nope"):
        fleet("plan", "nope")


def test_a_server_of_another_version_says_which_to_pin(settings: Any, make_dstack_pool: Any) -> None:
    import json

    from tests.fleets.conftest import point_django_at
    from tests.fleets.dstack.standin import DstackStandIn

    class OlderServer(DstackStandIn):
        def handle_api(self, path: str, body: dict[str, Any]) -> tuple[int, str]:
            if path == "/api/server/get_info":
                return 200, json.dumps({"server_version": "0.19.30"})
            return super().handle_api(path, body)

    pool = make_dstack_pool()
    with OlderServer() as server:
        point_django_at(settings, server.url, server.token)
        with pytest.raises(CommandError, match=r"client 0\.22\.5 does not match the dstack server 0\.19\.30.*"
                                               r"pip install 'dstack==0\.19\.30'"):
            fleet("plan", pool.name)

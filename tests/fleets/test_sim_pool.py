"""The simulated pool that runs for real (`manage.py fleet init NAME --backend sim`): a real local agent
judges its jobs while its cold starts and price are simulated, and it says "simulated" wherever it
shows: the pool picker, the API, the CLI, the admin and the cost dashboard."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from billing.services import credit_grant_create, ledger_accrue
from fleets.backends.sim import SimBackend, sim_cloud_bill, sim_forget
from fleets.models import Pool, PoolPolicy, VMInstance, VMState
from fleets.services import vm_acquire, vm_provision, vm_release, vm_stop
from tests.integration.conftest import process_running


def init(*args: str) -> str:
    out = StringIO()
    call_command("fleet", "init", "demo", "--backend", "sim", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def demo(db: Any) -> Pool:
    said = init("--rate", "36", "--cold-start", "0.2")
    assert "created simulated pool demo" in said
    assert "36 USD per VM-hour" in said
    return Pool.objects.get(name="demo")


def test_init_makes_a_paid_adaptive_pool_of_the_host_device_with_simulated_starts(demo: Pool) -> None:
    assert (demo.backend, demo.device, demo.accepted_languages) == ("sim", "host", ["cpp"])
    assert demo.hourly_rate == Decimal(36)
    assert demo.policy_in_effect == PoolPolicy.ADAPTIVE
    assert demo.is_simulated
    assert demo.config == {"agent": "local", "cold_start_s": 0.2, "no_capacity_rate": 0.0}
    assert "Simulated" in demo.title
    assert "updated simulated pool demo" in init("--rate", "1.99")  # again: updates it


@pytest.mark.parametrize(("args", "words"), [
    (["--no-capacity", "2"], "no_capacity_rate: give a share between 0 and 1"),
    (["--rate", "cheap"], "the rate must be a number"),
    (["--rate", "-1"], "a price cannot be negative"),
    (["--cold-start", "-5"], "cold_start_s: give seconds"),
])
def test_init_refuses_bad_values_with_a_sentence_and_saves_nothing(db: Any, args: list[str], words: str) -> None:
    with pytest.raises(CommandError, match=words):
        init(*args)
    assert not Pool.objects.exists()


def test_the_dstack_operations_say_a_simulated_pool_has_no_backend_fleet(demo: Pool) -> None:
    with pytest.raises(CommandError, match="uses the sim backend, not dstack"):
        call_command("fleet", "plan", "demo")


def test_the_api_and_the_pool_picker_label_it_simulated(demo: Pool, local_pool: Any, owner: Any, api_as: Any,
                                                        client: Any, problems_loaded: None) -> None:
    pools = {p["name"]: p for p in api_as(owner).get("/api/v1/pools").json()}
    assert pools["demo"]["simulated"] is True
    assert pools["local"]["simulated"] is False
    assert pools["demo"]["paid"] is True
    assert pools["demo"]["policy"] == "adaptive"
    client.force_login(owner)
    page = client.get("/problems/vector-add/").content.decode()
    assert page.count(">simulated</span>") == 1


def test_the_admin_and_the_cost_dashboard_label_it_simulated(demo: Pool, admin_client: Any) -> None:
    assert ">simulated<" in admin_client.get("/admin/fleets/pool/").content.decode()
    change = admin_client.get(f"/admin/fleets/pool/{demo.pk}/change/").content.decode()
    assert "Adaptive: cold start ~360 s" in change  # nothing measured yet: the default estimate
    vm = VMInstance.objects.create(pool=demo, state=VMState.WARM)
    VMInstance.objects.filter(pk=vm.pk).update(created_at=timezone.now() - timedelta(hours=1))
    ledger_accrue(vm_id=vm.pk)
    dashboard = admin_client.get("/admin/billing/ledgerentry/dashboard/").content.decode()
    assert "demo (simulated)" in dashboard
    assert "Includes simulated pools (demo)" in dashboard
    assert "simulated" in admin_client.get("/admin/fleets/vminstance/").content.decode()


@pytest.fixture
def real_demo(demo: Pool, settings: Any, tmp_path: Path) -> Iterator[Pool]:
    settings.HIPJUDGE_LOCAL_AGENT_ROOT = tmp_path / "agents"
    if shutil.which("bwrap") is None:  # the process and the billing are under test here, not the sandbox
        demo.config = {**demo.config, "insecure_no_sandbox": True}
        demo.save()
    yield demo
    for vm in VMInstance.objects.filter(pool=demo):
        SimBackend().stop(vm)
    sim_forget(pool_name=demo.name)


@pytest.mark.integration
def test_a_vm_of_the_pool_is_a_real_local_agent_after_a_simulated_cold_start(real_demo: Pool) -> None:
    credit_grant_create(name="demo credit", amount=Decimal(5))
    vm, cold = vm_acquire(pool=real_demo, job_ref="job-1") or (None, None)
    assert cold
    assert vm is not None
    vm = vm_provision(vm=vm)
    assert vm.state == VMState.BUSY
    assert vm.base_url.startswith("http://127.0.0.1:")
    assert process_running(vm.pid)
    assert vm.agent_info["simulated"] is True
    assert vm.agent_info["cold_start_s"] == 0.2
    assert vm.agent_info["device"] == "host"  # the agent's own health answer
    assert vm_release(vm=vm, job_ref="job-1")
    assert vm_stop(vm=vm, reason="done")
    vm.refresh_from_db()
    assert vm.state == VMState.STOPPED
    assert not process_running(vm.pid)
    # The ledger books it at the pool's price, as the simulated cloud bills it.
    ledger_accrue(vm_id=vm.pk)
    booked = sum(e.amount for e in vm.ledger_entries.all())
    assert booked > 0
    assert abs(booked - sim_cloud_bill(pool_name="demo")) < Decimal("0.01")
    assert {e.rate_per_hour for e in vm.ledger_entries.all()} == {Decimal(36)}

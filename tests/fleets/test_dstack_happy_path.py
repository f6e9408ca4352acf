"""The happy path a local dstack server cannot show: the VM's run reaches `running`, its agent (a
real agent process behind the stand-in's service proxy) answers health, judges a submission, is
reused warm by the next one and is stopped by the reaper. Everything up to the HTTP wire is
production code: the dstack client, the backend, the runner, billing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from billing.selectors import vm_costs
from billing.services import ledger_accrue
from fleets.dstack_pools.backend import DstackBackend
from fleets.dstack_pools.services import pool_dstack_ensure
from fleets.models import PoolPolicy, VMInstance, VMState
from fleets.services import vm_drain, vm_reap_idle
from submissions.dispatch import submission_dispatch_next
from submissions.models import Status, Submission, VMStartKind
from submissions.runner import Runner, submission_run
from submissions.services import submission_create
from tests.conftest import read_source
from tests.fleets.agent_standin import AgentStandIn
from tests.fleets.conftest import point_django_at

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("problems_loaded", "credit", "paid_access")]


@pytest.fixture
def standin(settings: Any, tmp_path: Path) -> Iterator[AgentStandIn]:
    with AgentStandIn(tmp_path / "vms") as server:
        point_django_at(settings, server.url, server.token, server.project)
        settings.HIPJUDGE_DSTACK_POLL = 0.05
        yield server


@pytest.fixture
def pool(standin: AgentStandIn) -> Any:
    # The agent behind the stand-in judges C++ on this machine's CPU; everything else is a dstack pool.
    pool, _ = pool_dstack_ensure(name="mi300x", backends=["amddevcloud"], max_vms=1, provision_timeout_s=60)
    pool.device, pool.languages = "host", ["cpp"]
    pool.save()
    return pool


def judge(user: Any, pool: Any, mode: str = "check") -> Submission:
    submission = submission_create(user=user, problem="vector-add", language="cpp", source=read_source("cpp.cpp"),
                                   pool_name=pool.name, mode=mode)
    assert submission_dispatch_next(pool=pool) is not None
    submission_run(submission_id=str(submission.pk))
    submission.refresh_from_db()
    return submission


def test_a_submission_is_judged_on_a_dstack_vm_then_reused_warm_then_reaped(
        standin: AgentStandIn, pool: Any, owner: Any) -> None:
    first = judge(owner, pool, mode="benchmark")
    assert first.status == Status.ACCEPTED, first.status_reason
    assert first.vm_start == VMStartKind.COLD_START
    assert first.score_ms
    assert first.score_ms > 0
    vm = VMInstance.objects.get()
    assert vm.state == VMState.WARM
    assert vm.handle == f"hj-vm-{vm.pk.hex[:8]}"
    assert vm.base_url == f"{standin.url}/proxy/services/main/{vm.handle}/"
    assert vm.agent_info["device"] == "host"
    assert vm.agent_info["price_per_hour"] == "1.99"
    assert vm.agent_info["dstack"]["backend"] == "amddevcloud"
    assert vm.agent_info["dstack"]["run_name"] == vm.handle
    # The cold start recorded is the time from the row's creation to the agent's health, so it fits
    # in the VM's own record of when it became ready (no bound on how long that may take here).
    cold_start = (vm.ready_at - vm.created_at).total_seconds()
    assert 0 <= vm.agent_info["cold_start_s"] <= round(cold_start, 1) + 0.1
    ready = first.events.get(type="VM_READY")
    assert ready.payload["agent"]["cold_start_s"] == vm.agent_info["cold_start_s"]
    # Every agent call went through the proxy with the dstack token (the stand-in refuses others).
    assert any(c.endswith("/v1/jobs") for c in standin.calls if c.startswith("/proxy/services/main/"))
    assert "token" not in str(vm.agent_info).lower()

    second = judge(owner, pool)
    assert second.status == Status.CHECKED
    assert second.vm_start == VMStartKind.WARM_REUSE
    assert second.vm_id == vm.pk
    assert len(standin.agents) == 1
    assert VMInstance.objects.count() == 1

    # Billing booked the VM at dstack's price for the instance, not the pool's configured rate.
    ledger_accrue(vm_id=vm.pk)
    assert vm_costs(vm_ids=[vm.pk])[vm.pk] > Decimal(0)
    assert {(e.rate_per_hour, e.rate_source) for e in vm.ledger_entries.all()} == {(Decimal("1.99"), "dstack")}

    # Idle past the timeout: the reaper stops the VM, which stops its dstack run and agent.
    # A fixed timeout: a dstack pool's default (adaptive) waits a quarter of the measured cold start,
    # which a loaded machine makes longer than the 5 s below (it read 24 s).
    pool.policy, pool.idle_timeout_s = PoolPolicy.FIXED, 1
    pool.save()
    assert vm_reap_idle(now=timezone.now() + timedelta(seconds=5)) == 1
    vm.refresh_from_db()
    assert vm.state == VMState.STOPPED
    assert standin.agents == {}
    assert not DstackBackend().is_alive(vm)


def test_a_drained_busy_vm_finishes_its_job_then_stops(standin: AgentStandIn, pool: Any, owner: Any) -> None:
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"),
                                   pool_name=pool.name, mode="check")
    submission_dispatch_next(pool=pool)
    vm = VMInstance.objects.get()
    # Staff drain the VM once it serves the job (cold start done, job about to be posted).
    runner = Runner(str(submission.pk))
    original = runner._post_job

    def drain_then_post() -> None:
        assert vm_drain(vm=VMInstance.objects.get(pk=vm.pk), reason="Drained by staff.") == "draining"
        original()

    runner._post_job = drain_then_post  # type: ignore[method-assign]
    runner.run()
    submission.refresh_from_db()
    vm.refresh_from_db()
    assert submission.status == Status.CHECKED, submission.status_reason
    assert (vm.state, vm.state_reason, vm.job_ref) == (VMState.STOPPED, "Drained by staff.", "")
    assert standin.agents == {}

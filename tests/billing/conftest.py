"""Billing fixtures: a paid pool beside the free local one, VMs moved through their states at
chosen instants (as fleets.services would move them), grants, and spend booked directly."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

T0 = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
RATE = Decimal("1.990000")


@pytest.fixture
def paid_pool(db: Any) -> Any:
    from fleets.services import pool_ensure

    pool, _ = pool_ensure(name="mi300x", backend="local", device="host", max_vms=2, idle_timeout_s=600,
                            hourly_rate=RATE, title="MI300X (paid)")
    return pool


@pytest.fixture
def make_vm() -> Callable[..., Any]:
    """make_vm(pool, at=..., job_ref=...) -> a PROVISIONING VM created at `at`."""
    from fleets.models import VMInstance, VMState

    def make(pool: Any, *, at: datetime = T0, job_ref: str = "", **fields: Any) -> Any:
        vm = VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, job_ref=job_ref, **fields)
        VMInstance.objects.filter(pk=vm.pk).update(created_at=at, state_changed_at=at)
        vm.refresh_from_db()
        return vm

    return make


def move(vm: Any, state: str, at: datetime, *, job_ref: str = "", accrue: bool = True) -> list[Any]:
    """Change the VM's state at `at` like fleets.services._set_state, then accrue as the signal does."""
    from billing.services import ledger_accrue
    from fleets.models import VMInstance

    fields: dict[str, Any] = {"state": state, "state_changed_at": at, "job_ref": job_ref}
    if state in ("STOPPED", "FAILED"):
        fields["stopped_at"] = at
    if state in ("WARM", "BUSY") and vm.ready_at is None:
        fields["ready_at"] = at
    VMInstance.objects.filter(pk=vm.pk).update(**fields)
    vm.refresh_from_db()
    return ledger_accrue(vm_id=vm.pk, now=at) if accrue else []


@pytest.fixture
def grant(db: Any) -> Callable[..., Any]:
    from billing.services import credit_grant_create

    def make(amount: str = "100", *, starts_at: datetime | None = None, **kwargs: Any) -> Any:
        return credit_grant_create(name=f"grant {amount}", amount=Decimal(amount),
                                   starts_at=starts_at or datetime.now(UTC) - timedelta(days=1), **kwargs)

    return make


@pytest.fixture
def spend(db: Any) -> Callable[..., Any]:
    """spend(pool, "12.50") books a charge now (an adjustment entry), as accrual would."""
    from billing.services import ledger_adjust

    def book(pool: Any, amount: str, *, user: Any = None, at: datetime | None = None) -> Any:
        at = at or datetime.now(UTC) - timedelta(minutes=1)
        return ledger_adjust(pool=pool, amount=Decimal(amount), note="test spend", period_start=at,
                             period_end=at + timedelta(seconds=30), user_id=user.pk if user else None)

    return book


@pytest.fixture
def make_submission(problems_loaded: None) -> Callable[..., Any]:
    from submissions.models import Problem, Status, Submission

    def make(user: Any, pool: Any, *, status: str = Status.ACCEPTED, **fields: Any) -> Any:
        problem = Problem.objects.select_related("current_version").get(slug="vector-add")
        return Submission.objects.create(user=user, problem=problem, problem_version=problem.current_version,
                                         pool=pool, language="cpp", source="int main(){}", status=status,
                                         **fields)

    return make

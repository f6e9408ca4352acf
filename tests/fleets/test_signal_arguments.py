"""Each signal's arguments are said once, in its module's docstring: the sender sends those, and the
receiver names those (explicit keyword arguments, never kwargs.get)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import billing.signals
import fleets.signals
import limits.signals
from fleets.models import VMInstance, VMState
from fleets.services import vm_fail
from submissions import receivers
from tests.fleets.conftest import StandInBackend


def documented(module: ModuleType, signal: str) -> set[str]:
    """The names in the `- signal(a, b, ...)` line of the module's docstring."""
    match = re.search(rf"^- {signal}\(([^)]*)\)", module.__doc__ or "", re.M)
    assert match, f"{module.__name__} does not document {signal}"
    return {name.strip() for name in match.group(1).split(",")}


def named_arguments(receiver: Callable[..., Any]) -> set[str]:
    parameters = inspect.signature(receiver).parameters.values()
    return {p.name for p in parameters if p.kind == p.KEYWORD_ONLY or
            (p.kind == p.POSITIONAL_OR_KEYWORD and p.name != "sender")}


@pytest.mark.parametrize(("module", "signal", "receiver"), [
    (fleets.signals, "vm_lost", receivers.on_vm_lost),
    (fleets.signals, "vm_state_changed", receivers.on_vm_state_changed),
    (limits.signals, "user_suspended", receivers.on_user_suspended),
], ids=lambda value: getattr(value, "__name__", value))
def test_each_receiver_names_the_documented_arguments(module: ModuleType, signal: str,
                                                      receiver: Callable[..., Any]) -> None:
    assert named_arguments(receiver) == documented(module, signal)


def test_credit_granted_is_documented_with_what_billing_sends() -> None:
    assert documented(billing.signals, "credit_granted") == {"grant_id"}


@pytest.mark.parametrize("no_capacity", [False, True])
def test_vm_fail_sends_vm_lost_with_the_documented_arguments(local_pool: Any, backend: StandInBackend,
                                                             django_capture_on_commit_callbacks: Any,
                                                             no_capacity: bool) -> None:
    sent: list[dict[str, Any]] = []

    def record(sender: Any, **kwargs: Any) -> None:
        sent.append(kwargs)

    vm = VMInstance.objects.create(pool=local_pool, state=VMState.BUSY, job_ref="job-1")
    fleets.signals.vm_lost.connect(record)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert vm_fail(vm=vm, reason="gone", no_capacity=no_capacity)
    finally:
        fleets.signals.vm_lost.disconnect(record)
    [kwargs] = sent
    assert set(kwargs) - {"signal"} == documented(fleets.signals, "vm_lost")
    assert kwargs == {"signal": fleets.signals.vm_lost, "vm_id": vm.pk, "pool_id": local_pool.pk,
                      "job_ref": "job-1", "reason": "gone", "no_capacity": no_capacity}

"""No double allocation: many worker processes dispatching and acquiring at once on PostgreSQL.

SQLite serializes every writer (IMMEDIATE transactions), so this race only exists on PostgreSQL;
the tests are skipped, visibly, when DATABASE_URL does not point at one.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from django.conf import settings

from fleets.models import LIVE_VM_STATES, VMInstance, VMState
from submissions.models import Problem, Status, Submission
from tests.conftest import read_source
from tests.integration.conftest import Stack
from tests.support.start_together import start_together

pytestmark = [
    pytest.mark.integration,
    pytest.mark.usefixtures("problems_loaded"),
    pytest.mark.skipif(not settings.IS_POSTGRES,
                       reason="needs PostgreSQL: set DATABASE_URL=postgres://... (make test does when it answers)"),
]
PROCESSES = 6
HOLDS = 6  # acquisitions each churning process makes

SCRIPT = r"""
import json, os, sys, time
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from fleets.models import Pool, VMInstance
from fleets.services import vm_acquire, vm_release
from submissions.dispatch import submission_dispatch_next

pool = Pool.objects.get(name="local")
mode, me, HOLDS = sys.argv[1], sys.argv[2], int(sys.argv[3])
print("ready", flush=True); sys.stdin.readline()  # tests.support.start_together
out = []
if mode == "dispatch":
    while (s := submission_dispatch_next(pool=pool)) is not None:
        out.append(str(s.pk))
else:
    for i in range(2000):  # bounded; every process gets its HOLDS long before that
        if len(out) == HOLDS:
            break
        got = vm_acquire(pool=pool, job_ref=f"{me}-{i}")
        if got is None:
            time.sleep(0.002)
            continue
        vm, _ = got
        t0 = time.monotonic()
        holder = VMInstance.objects.get(pk=vm.pk).job_ref
        time.sleep(0.005)
        t1 = time.monotonic()
        vm_release(vm=vm, job_ref=f"{me}-{i}")
        out.append([str(vm.pk), t0, t1, holder == f"{me}-{i}"])
print(json.dumps(out))
"""


def run_all(stack: Stack, mode: str) -> list[Any]:
    procs = start_together([[sys.executable, "-c", SCRIPT, mode, f"p{i}", str(HOLDS)] for i in range(PROCESSES)],
                           cwd=settings.BASE_DIR, env=stack.env)
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def test_concurrent_dispatchers_never_give_one_vm_two_submissions(stack: Stack, owner: Any, other_user: Any,
                                                                  local_pool: Any) -> None:
    local_pool.max_vms = 3
    local_pool.save()
    VMInstance.objects.create(pool=local_pool, state=VMState.WARM)
    version = Problem.objects.get(slug="vector-add").current_version
    Submission.objects.bulk_create([
        Submission(user=owner if i % 2 else other_user, problem=version.problem, problem_version=version,
                   pool=local_pool, language="cpp", source=read_source("cpp.cpp"), status=Status.IN_QUEUE)
        for i in range(40)])
    dispatched = [sid for per_process in run_all(stack, "dispatch") for sid in per_process]
    assert len(dispatched) == len(set(dispatched)) == 3  # one per VM the pool may have
    live = VMInstance.objects.filter(state__in=LIVE_VM_STATES)
    assert live.count() == 3
    for vm in live:
        assert Submission.objects.filter(vm=vm, status__in=(Status.PROVISIONING, Status.COMPILING)).count() == 1
        assert vm.job_ref == str(Submission.objects.get(vm=vm).pk)
    assert Submission.objects.filter(status=Status.IN_QUEUE).count() == 37


def test_concurrent_acquire_and_release_never_overlap_on_a_vm(stack: Stack, local_pool: Any) -> None:
    local_pool.max_vms = 3
    local_pool.save()
    for _ in range(3):
        VMInstance.objects.create(pool=local_pool, state=VMState.WARM)
    per_process = run_all(stack, "churn")
    assert [len(holds) for holds in per_process] == [HOLDS] * PROCESSES
    holds = [hold for holds in per_process for hold in holds]
    assert all(h[3] for h in holds)  # the row named us while we held it
    by_vm: dict[str, list[tuple[float, float]]] = {}
    for vm_id, t0, t1, _ in holds:
        by_vm.setdefault(vm_id, []).append((t0, t1))
    for spans in by_vm.values():
        spans.sort()
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))
    assert VMInstance.objects.count() == 3  # warm VMs were enough: nothing was provisioned
    assert set(VMInstance.objects.values_list("state", flat=True)) == {VMState.WARM}

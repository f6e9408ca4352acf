"""Nothing outlives its master (issue 32, defect 2): the workers are SIGKILLed after a job (nothing
runs serve.sh's stop), and the warm VM's agent, hearing from no platform, stops itself and says so;
the reconcile of the workers that come back finds the VM gone and fails it. Bounded in time and count.
"""

from __future__ import annotations

import json
import signal
import urllib.request
from typing import Any

import pytest

from accounts.tokens import token_create
from fleets.models import VMInstance, VMState
from fleets.services import vms_reconcile
from submissions.models import TERMINAL_STATUSES, Submission
from tests.conftest import read_source
from tests.integration.conftest import Stack, pids_with, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.faults, pytest.mark.timeout(300),
              pytest.mark.usefixtures("problems_loaded")]
SILENCE_S = 3


def test_an_agent_whose_workers_were_killed_stops_itself_and_the_reconcile_fails_its_vm(
        stack: Stack, judging_pool: Any, owner: Any) -> None:
    stack.env["HIPJUDGE_AGENT_SILENCE_LIMIT"] = str(SILENCE_S)
    worker = stack.start_worker(workers=2)
    url = stack.start_web()
    body = json.dumps({"problem": "vector-add", "language": "cpp", "mode": "check",
                       "source": read_source("cpp.cpp")}).encode()
    request = urllib.request.Request(f"{url}/api/v1/submissions", data=body, method="POST", headers={
        "Authorization": f"Token {token_create(user=owner).key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        submission_id = json.loads(response.read())["id"]
    wait_for(lambda: Submission.objects.filter(pk=submission_id, status__in=TERMINAL_STATUSES).exists(), 180,
             "the submission to end")
    vm = VMInstance.objects.get()
    wait_for(lambda: VMInstance.objects.filter(pk=vm.pk, state=VMState.WARM).exists(), 30, "its VM to be given back")
    assert pids_with(str(stack.agent_root))

    stack.kill(worker, signal.SIGKILL)  # the workers die; nothing stops their VMs
    wait_for(lambda: not pids_with(str(stack.agent_root)), 60, "the agent to stop itself")
    log = (stack.agent_root / judging_pool.name / f"vm-{vm.pk}" / "agent.log").read_text(errors="replace")
    assert "no request from the platform for" in log
    assert "stopping itself" in log

    assert vms_reconcile()["vms_failed"] == 1  # what the reconcile of the workers that come back does
    vm.refresh_from_db()
    assert vm.state == VMState.FAILED
    assert vm.state_reason == "The agent process is gone."

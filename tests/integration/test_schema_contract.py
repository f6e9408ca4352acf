"""The API keeps its published contract: Schemathesis (`--checks all`) against a live uvicorn, with
the schema the server itself serves, once as a user and once as staff.

Every operation of the schema is covered (the user's run leaves out the staff-only one); an endpoint
added later is tested without a change here. A run must end with no warning: each means part of an
operation went untested. Settings that are not on the command line (and why) are in schemathesis.toml
beside this file; the credentials POST /auth/token is given are in schemathesis_hooks.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission

from accounts.tokens import token_create
from core.heartbeat import heartbeat_beat

pytestmark = [pytest.mark.integration, pytest.mark.contract]

CONFIG = Path(__file__).with_name("schemathesis.toml")
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")  # the persona's own credentials for POST /auth/token
# Per operation and phase. The user's run explores with 10; staff's, the same operations with more
# rights (and the one staff-only), with 5.
MAX_EXAMPLES = {"user": 10, "staff": 5}
# The coverage phase sends each operation's boundary and invalid values, the same requests whoever
# asks (about 600 of the user's 763 test cases): staff's run leaves it to the user's.
PHASES = {"user": "examples,coverage,fuzzing,stateful", "staff": "examples,fuzzing,stateful"}
SEED = 20261123  # a fixed seed: the same requests every run, so a failure is reproducible
PASSWORD = "correct horse battery"  # tests.conftest.make_user's
# Staff who may read the ledger only: a user's answer is always 403 (tests/billing/test_api.py checks it,
# tests/core/test_schema.py that the schema lists it), so a user's run would only ever see that 403.
STAFF_ONLY = ["metrics_retrieve"]


def schemathesis(url: str, user: Any, token: str, workdir: Path, exclude: list[str],
                 examples: int, phases: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(CONFIG), "--no-color",
               "run", f"{url}/api/v1/schema", "--checks", "all", "--max-examples", str(examples), "--phases", phases,
               "--seed", str(SEED), "--workers", "1", "-H", f"Authorization: Token {token}",
               *(arg for operation_id in exclude for arg in ("--exclude-operation-id", operation_id))]
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS), "HIPJUDGE_CONTRACT_USERNAME": user.username,
           "HIPJUDGE_CONTRACT_PASSWORD": PASSWORD}
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, cwd=workdir, env=env)


@pytest.mark.parametrize("persona", ["user", "staff"])
def test_every_operation_keeps_the_schema(persona: str, stack: Any, problems_loaded: Any, local_pool: Any,
                                          make_user: Any, tmp_path: Path) -> None:
    user = make_user(persona, staff=persona == "staff", password=PASSWORD)
    if persona == "staff":  # staff who may read the platform's costs: GET /metrics answers 200
        user.user_permissions.add(Permission.objects.get(codename="view_ledgerentry"))
    heartbeat_beat(name="schemathesis")  # a worker cluster as `make run` has one: /readyz answers 200
    url = stack.start_web()
    exclude = STAFF_ONLY if persona == "user" else []
    result = schemathesis(url, user, token_create(user=user).key, tmp_path, exclude,  # its cache goes to tmp_path
                          MAX_EXAMPLES[persona], PHASES[persona])
    summary = result.stdout[result.stdout.rfind("SUMMARY"):]
    print(summary)  # the figures (operations, test cases, time) show with pytest -s
    assert result.returncode == 0, result.stdout[-12000:] + result.stderr[-2000:]
    selected = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", summary)
    assert selected, summary
    chosen, total, tested = map(int, selected.groups())
    assert chosen == tested == total - len(exclude), summary  # every operation of the schema was tested
    # No warning either: a warning means a part of an operation went untested (e.g. only refusals seen).
    assert "Warnings:" not in summary, result.stdout[-6000:]
    assert user.api_tokens.count() > 1  # POST /auth/token issued tokens, not only refusals

"""The `hipjudge` console script against a live server (uvicorn + a qcluster worker + the local pool)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.main import exit_code_for
from tests.conftest import PROBLEMS
from tests.integration.conftest import Stack, free_port

SOLUTIONS = PROBLEMS / "vector-add" / "solutions"


def hipjudge(args: list[str], *, env: dict[str, str], stdin: str = "", timeout: float = 180) -> tuple[int, str]:
    script = Path(sys.executable).parent / "hipjudge"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "cli.main"]
    done = subprocess.run(command + args, input=stdin, capture_output=True, text=True, env=env, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(("status", "mode", "code"), [
    ("ACCEPTED", "benchmark", 0), ("CHECKED", "check", 0), ("COMPILED", "compile", 0),
    ("CHECKED", "benchmark", 1), ("WRONG_ANSWER", "check", 1), ("REJECTED", "benchmark", 1), ("ERROR", "check", 1),
])
def test_the_exit_code_is_zero_only_when_the_mode_succeeded(status: str, mode: str, code: int) -> None:
    assert exit_code_for(status, mode) == code


def test_an_unreachable_server_exits_4(tmp_path: Path) -> None:
    env = {**os.environ, "HIPJUDGE_CONFIG": str(tmp_path / "c.json")}
    code, out = hipjudge(["--server", f"http://127.0.0.1:{free_port()}", "problems"], env=env, timeout=30)
    assert code == 4 and "cannot reach" in out


@pytest.mark.integration
@pytest.mark.usefixtures("problems_loaded", "judging_pool")
def test_login_submit_watch_and_status_against_a_live_server(stack: Stack, owner: Any, other_user: Any,
                                                             tmp_path: Path) -> None:
    url = stack.start_web()
    stack.start_worker()
    env = {**os.environ, "HIPJUDGE_CONFIG": str(tmp_path / "config.json"), "HIPJUDGE_SERVER": url}
    env.pop("HIPJUDGE_TOKEN", None)

    code, out = hipjudge(["login", "-u", "owner", "--password-stdin"], env=env, stdin="wrong\n")
    assert code == 2 and "Wrong username or password" in out
    code, out = hipjudge(["login", "-u", "owner", "--password-stdin"], env=env, stdin="correct horse battery\n")
    assert code == 0, out
    config = tmp_path / "config.json"
    assert oct(config.stat().st_mode & 0o777) == "0o600" and json.loads(config.read_text())["token"]

    code, out = hipjudge(["problems"], env=env)
    assert code == 0 and "vector-add" in out

    code, out = hipjudge(["submit", str(SOLUTIONS / "cpp.cpp"), "-p", "vector-add", "--mode", "check", "--wait"],
                         env=env)
    assert code == 0, out
    assert "✓ test 4/4 n=1048576" in out and "CHECKED" in out and "COLD_START" in out

    code, out = hipjudge(["submit", str(SOLUTIONS / "wrong.cpp"), "-p", "vector-add", "--mode", "check", "--wait"],
                         env=env)
    assert code == 1 and "WRONG_ANSWER" in out and "WARM_REUSE" in out
    wrong_id = re.search(r"submitted ([0-9a-f-]{36})", out).group(1)

    code, out = hipjudge(["status", wrong_id], env=env)
    assert code == 1 and "status: WRONG_ANSWER" in out and "✗ n=1" in out

    code, out = hipjudge(["submit", str(SOLUTIONS / "cpp.cpp"), "-p", "no-such-problem"], env=env)
    assert code == 2 and "there is no problem 'no-such-problem'" in out

    # Another user's token cannot see it.
    from rest_framework.authtoken.models import Token

    other_env = {**env, "HIPJUDGE_TOKEN": Token.objects.get_or_create(user=other_user)[0].key}
    code, out = hipjudge(["status", wrong_id], env=other_env)
    assert code == 2 and "No such submission" in out

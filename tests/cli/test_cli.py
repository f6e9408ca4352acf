"""The `hipjudge` console script against a live server (uvicorn + a qcluster worker + the local pool)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
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
    assert code == 4
    assert "cannot reach" in out


@pytest.mark.integration
@pytest.mark.usefixtures("problems_loaded", "judging_pool")
def test_login_submit_watch_and_status_against_a_live_server(stack: Stack, owner: Any, other_user: Any,
                                                             tmp_path: Path) -> None:
    url = stack.start_web()
    stack.start_worker()
    env = {**os.environ, "HIPJUDGE_CONFIG": str(tmp_path / "config.json"), "HIPJUDGE_SERVER": url}
    env.pop("HIPJUDGE_TOKEN", None)

    code, out = hipjudge(["login", "-u", "owner", "--password-stdin"], env=env, stdin="wrong\n")
    assert code == 2
    assert "Wrong username or password" in out
    code, out = hipjudge(["login", "-u", "owner", "--password-stdin"], env=env, stdin="correct horse battery\n")
    assert code == 0, out
    config = tmp_path / "config.json"
    assert oct(config.stat().st_mode & 0o777) == "0o600"
    assert json.loads(config.read_text())["token"]

    code, out = hipjudge(["problems"], env=env)
    assert code == 0
    assert "vector-add" in out
    # The filters through the real client's query string.
    code, out = hipjudge(["problems", "--tag", "gemm", "--type", "bfloat16", "--difficulty", "hard"], env=env)
    assert code == 0
    assert "gemm-fp8-blockwise" in out
    assert "vector-add" not in out
    assert "gemm-bf16 " not in out
    code, out = hipjudge(["problem", "vector-add"], env=env)
    assert code == 0
    assert 'cuda: extern "C" void solution(const float* a' in out
    assert "input" in out

    code, out = hipjudge(["submit", str(SOLUTIONS / "cpp.cpp"), "-p", "vector-add", "--mode", "check", "--wait"],
                         env=env)
    assert code == 0, out
    assert "✓ test 4 of 4 passed: n=1048576" in out
    assert "CHECKED" in out
    assert "COLD_START" in out

    code, out = hipjudge(["submit", str(SOLUTIONS / "wrong.cpp"), "-p", "vector-add", "--mode", "check", "--wait"],
                         env=env)
    assert code == 1
    assert "WRONG_ANSWER" in out
    assert "WARM_REUSE" in out
    wrong_id = re.search(r"submitted ([0-9a-f-]{36})", out).group(1)

    code, out = hipjudge(["status", wrong_id], env=env)
    assert code == 1
    assert "status: WRONG_ANSWER" in out
    assert "✗ FAILED n=1" in out

    code, out = hipjudge(["submit", str(SOLUTIONS / "cpp.cpp"), "-p", "no-such-problem"], env=env)
    assert code == 2
    assert "there is no problem 'no-such-problem'" in out

    # Another user's token cannot see it.
    from accounts.tokens import token_create

    other_env = {**env, "HIPJUDGE_TOKEN": token_create(user=other_user).key}
    code, out = hipjudge(["status", wrong_id], env=other_env)
    assert code == 2
    assert "No such submission" in out


def test_pools_names_the_modes_of_languages_a_pool_does_not_run_in_full() -> None:
    from cli.main import _offered

    pool = {"languages": ["cpp"], "offers": [
        {"language": "cpp", "modes": ["benchmark", "check", "compile"], "emulated": False},
        {"language": "hip", "modes": ["check", "compile"], "emulated": True},
        {"language": "cuda", "modes": ["compile"], "emulated": False}]}
    assert _offered(pool) == "cpp; hip: emulated check, compile; cuda: compile"
    assert _offered({"languages": ["cpp", "hip"]}) == "cpp,hip"  # a server from before offers


@pytest.mark.integration
@pytest.mark.usefixtures("problems_loaded", "judging_pool")
def test_pools_and_submit_offer_a_hip_check_on_the_emulated_device(stack: Stack, owner: Any, tmp_path: Path) -> None:
    from accounts.tokens import token_create

    env = {**os.environ, "HIPJUDGE_CONFIG": str(tmp_path / "config.json"), "HIPJUDGE_SERVER": stack.start_web(),
           "HIPJUDGE_TOKEN": token_create(user=owner).key}
    code, out = hipjudge(["pools"], env=env)
    assert code == 0
    assert re.search(r"^local \*\s+host\s+cpp; hip: emulated check; cuda: emulated check; triton: emulated check\s",
                     out, re.M)
    assert "local: Check on CPU (emulated): " in out
    assert "no timing" in out
    assert "* the default pool" in out

    hip = str(SOLUTIONS / "hip.hip")
    code, out = hipjudge(["submit", hip, "-p", "vector-add", "--mode", "benchmark"], env=env)
    assert code == 2
    assert "so mode benchmark is not possible (emulated times mean nothing)" in out
    assert "Possible for hip there: mode check (Check on CPU (emulated))." in out
    code, out = hipjudge(["submit", hip, "-p", "vector-add"], env=env)  # the mode the default pool runs hip in
    assert code == 0
    assert "mode check: pool local runs hip on the emulated device (CPU) that way" in out
    assert ", check, pool local, emulated (CPU))" in out
    submission_id = re.search(r"submitted ([0-9a-f-]{36})", out).group(1)
    code, out = hipjudge(["status", submission_id], env=env)
    assert code == 3
    assert f"{submission_id}  vector-add  hip  check  emulated (CPU)  pool local" in out


@pytest.mark.integration
@pytest.mark.usefixtures("problems_loaded")
def test_submit_checks_a_hip_kernel_on_the_emulated_device(stack: Stack, emulating_pool: Any, owner: Any,
                                                           tmp_path: Path) -> None:
    from accounts.tokens import token_create

    env = {**os.environ, "HIPJUDGE_CONFIG": str(tmp_path / "config.json"), "HIPJUDGE_SERVER": stack.start_web(),
           "HIPJUDGE_TOKEN": token_create(user=owner).key}
    stack.start_worker()
    code, out = hipjudge(["submit", str(SOLUTIONS / "hip.hip"), "-p", "vector-add", "--mode", "check", "--wait"],
                         env=env)
    assert code == 0, out
    assert "CHECKED: " in out
    assert "emulated device" in out


@pytest.mark.parametrize(("status", "code"), [("ACCEPTED", 0), ("WRONG_ANSWER", 1), ("ERROR", 1)])
def test_a_leaderboard_submission_succeeds_when_accepted(status: str, code: int) -> None:
    assert exit_code_for(status, "leaderboard") == code


@pytest.mark.integration
@pytest.mark.usefixtures("problems_loaded", "local_pool")
def test_submit_to_the_leaderboard_then_read_the_leaderboard_and_the_rank(stack: Stack, owner: Any, other_user: Any,
                                                                          tmp_path: Path) -> None:
    """Against the scripted stand-in agent (fixed figures, so the output's form can be held exactly)."""
    from accounts.tokens import token_create

    stack.env["HIPJUDGE_LOCAL_AGENT_MODULE"] = "tests.support.fake_agent"
    url = stack.start_web()
    stack.start_worker()
    env = {**os.environ, "HIPJUDGE_CONFIG": str(tmp_path / "config.json"), "HIPJUDGE_SERVER": url,
           "HIPJUDGE_TOKEN": token_create(user=owner).key}

    code, out = hipjudge(["submit", str(SOLUTIONS / "cpp.cpp"), "-p", "vector-add", "--mode", "leaderboard", "--wait"],
                         env=env)
    assert code == 0, out
    assert "· RANKING" in out
    assert "ranked 1/1 n=3000017: 12 runs, mean 3.0000 ms" in out
    assert "ranked score: 3.0000 ms (95% 2.9400..3.0600), speedup 1.50x" in out
    # The pool's first result is a record: --wait says it waits for its confirmation and ends ranked.
    assert "a record: waiting for a second judging on a new secret seed" in out
    assert "rank 1 on vector-add, pool local" in out
    assert "public benchmark score: 1.5000 ms (does not rank)" in out
    submission_id = re.search(r"submitted ([0-9a-f-]{36})", out).group(1)

    # The pool's first result is a record: it ranks once the worker's second judging agrees (the same
    # scripted figures here).
    for _ in range(60):
        code, out = hipjudge(["rank", submission_id], env=env)
        if code == 0:
            break
        time.sleep(0.5)
    assert code == 0, out
    assert "rank 1 on vector-add, pool local" in out, out
    code, out = hipjudge(["leaderboard", "-p", "vector-add"], env=env)
    # 12.0%: the ranked case's floor on the host pool (0.36 ms at 100 GB/s) against 3 ms.
    row = r"^1\s+owner\s+3\.0000\s+2\.9400\.\.3\.0600\s+1\.50x\s+12\.0%\s+cpp\s.*private$"
    assert code == 0, out
    assert re.search(row, out, re.M), out
    code, out = hipjudge(["--json", "leaderboard", "-p", "vector-add", "--limit", "5"], env=env)
    rows = json.loads(out.splitlines()[-1])
    assert code == 0
    assert rows[0]["user"] == "owner"
    assert rows[0]["submission"] == "private"

    code, out = hipjudge(["submit", str(SOLUTIONS / "cpp.cpp"), "-p", "vector-add", "--mode", "benchmark"], env=env)
    benchmark_id = re.search(r"submitted ([0-9a-f-]{36})", out).group(1)
    code, out = hipjudge(["rank", benchmark_id], env=env)
    assert code == 1
    assert "not on the leaderboard (not entered)" in out
    code, out = hipjudge(["leaderboard", "-p", "vector-add", "--pool", "nowhere"], env=env)
    assert code == 2
    assert "No pool 'nowhere'" in out
    other_env = {**env, "HIPJUDGE_TOKEN": token_create(user=other_user).key}
    code, out = hipjudge(["rank", submission_id], env=other_env)
    assert code == 2
    assert "No such submission" in out

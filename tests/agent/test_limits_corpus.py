"""The limits corpus: submissions that go for the agent's resources (memory, disk and
threads past their caps, nested user namespaces, an unbounded result line, compile cache growth, a
checkout under /usr),
each judged for real (g++, bubblewrap, the host device) with its expected verdict, and the host
side checked too: the caps held, nothing of the platform was read, no process outlived the job.

Every file in tests/agent/corpus_limits/ is a vector-add submission.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent.config import AgentConfig, build_config
from agent.judging.jobs import JobManager
from agent.protocol import EVENT_REASON_CHARS, EVENT_TEXT_CHARS
from agent.sandbox.cgroups import cgroup_manager
from agent.sandbox.core import SANDBOX_TASKS
from agent.sandbox.modes import BwrapSandbox, detect_sandbox
from agent.sandbox.resources import MIB
from tests.agent.conftest import (
    PROBLEMS_DIR,
    ROOT,
    job_dir_name,
    load_problem,
    run_job,
    wait_until_no_process_mentions,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

CORPUS = Path(__file__).resolve().parent / "corpus_limits"
CGROUPS = cgroup_manager()
needs_cgroups = pytest.mark.skipif(not CGROUPS.usable, reason=f"no cgroup can be made here: {CGROUPS.why_not}")


def source(name: str, **values: str) -> str:
    text = (CORPUS / name).read_text()
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    assert not re.findall(r"@[A-Z]+@", text), name
    return text


def reported_c0(result: dict[str, Any]) -> int:
    match = re.search(r"c\[0\] = (-?\d+)", result["reason"])
    assert match, result["reason"]
    return int(match.group(1))


Check = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Entry:
    file: str
    status: str
    reason: tuple[str, ...] = ()
    mode: str = "check"
    limits: dict[str, Any] = field(default_factory=dict)
    check: Check | None = None
    marks: tuple[Any, ...] = ()


def _tmpfs_bounded(result: dict[str, Any]) -> None:
    # memory_mb 1024: /tmp and /dev/shm are 256 MiB each (a quarter of the cap)
    assert 0 < reported_c0(result) <= 2 * 256, f"{reported_c0(result)} MiB written to tmpfs"


def _box_bounded(result: dict[str, Any]) -> None:
    # /box of the run phase: an empty private tmpfs of 64 MiB (harness.RUN_BOX_BYTES), RLIMIT_FSIZE 64 MiB
    assert 0 < reported_c0(result) <= 64, f"{reported_c0(result)} MiB written to /box (-1: not an empty tmpfs)"


def _threads_bounded(result: dict[str, Any]) -> None:
    assert 0 < reported_c0(result) <= 64 + SANDBOX_TASKS, f"{reported_c0(result)} threads started"


def _killed_at_the_memory_cap(result: dict[str, Any]) -> None:
    assert "ran out of memory" in result["reason"], result["reason"]
    assert "memory limit of 512 MiB" in result["reason"], result["reason"]


ENTRIES = [
    Entry("tmpfs_fill.cpp", "WRONG_ANSWER", ("c[0] = ",), limits={"memory_mb": 1024}, check=_tmpfs_bounded),
    Entry("box_fill.cpp", "WRONG_ANSWER", ("c[0] = ",), check=_box_bounded),
    # The memory cap must decide, not the clock: the files it takes to reach 512 MiB are made in
    # seconds on a quiet machine, several times that on a loaded one, and the wall limit is far above.
    Entry("many_files.cpp", "RUNTIME_ERROR", ("in case 'n=1'",), limits={"memory_mb": 512, "check_s": 150},
          check=_killed_at_the_memory_cap, marks=(needs_cgroups, pytest.mark.timeout(240))),
    Entry("thread_bomb.cpp", "WRONG_ANSWER", ("c[0] = ", "the sandbox refused some of the threads"),
          limits={"nproc": 64}, check=_threads_bounded,
          marks=(needs_cgroups,)),
    Entry("nested_userns.cpp", "CHECKED"),
    Entry("big_static_array.cpp", "COMPILE_ERROR", ("larger than the limit of 256 MiB",), mode="compile"),
]
SEPARATE = {"huge_error_line.cpp", "cache_filler.cpp", "read_checkout_under_usr.cpp"}  # tests of their own


def test_every_limits_corpus_file_has_an_expectation():
    assert sorted([e.file for e in ENTRIES] + sorted(SEPARATE)) == sorted(p.name for p in CORPUS.glob("*.cpp"))
    assert [p.name for p in CORPUS.glob("*.hip")] == ["compiler_memory_bomb.hip"]


@pytest.mark.parametrize("entry", [pytest.param(e, marks=e.marks, id=e.file.removesuffix(".cpp")) for e in ENTRIES])
def test_a_resource_attack_gets_its_verdict_and_the_limit_holds(entry: Entry, judge_config: AgentConfig):
    job_id = f"limits-{uuid.uuid4().hex}"
    result, _ = run_job(load_problem("vector-add"), source(entry.file), "cpp", entry.mode, entry.limits or None,
                        config=judge_config, job_id=job_id, cache_scope=None)
    assert result["status"] == entry.status, result
    for part in entry.reason:
        assert part in result["reason"], result["reason"]
    if entry.check is not None:
        entry.check(result)
    assert not wait_until_no_process_mentions(job_dir_name(job_id))
    assert not (judge_config.jobs_dir / job_dir_name(job_id)).exists()


@pytest.mark.skipif(not shutil.which("hipcc"), reason="hipcc is not installed")
def test_a_hip_compile_has_a_memory_cap(judge_config: AgentConfig, monkeypatch: pytest.MonkeyPatch):
    """Compiler memory: hipcc had no memory limit at all. The cap is lowered to 512 MiB here so that the test
    costs the shared machine little; the default is compiler.COMPILE_RAM_BYTES."""
    import agent.judging.compiler

    monkeypatch.setattr(agent.judging.compiler, "COMPILE_RAM_BYTES", 512 * MIB)
    result, _ = run_job(load_problem("vector-add"), (CORPUS / "compiler_memory_bomb.hip").read_text(), "hip",
                        "compile", {"compile_s": 120}, config=judge_config, cache_scope=None)
    assert result["status"] == "COMPILE_ERROR", result
    assert "out of memory" in result["reason"], result  # the cgroup's kill, or RLIMIT_DATA's refusal


def test_a_60_mib_error_line_reaches_no_event_uncut(judge_config: AgentConfig):
    """An unbounded result line, through the JobManager, where every event of the agent is made (and HTTP
    serves them)."""
    manager = JobManager(judge_config)
    body = {"id": f"limits-{uuid.uuid4().hex}", "problem": load_problem("vector-add").to_bundle(),
            "language": "cpp", "source": source("huge_error_line.cpp"), "mode": "check"}
    job, _ = manager.submit(body)
    assert job.done.wait(120)
    found = manager.events(job.id)
    assert found is not None
    state, events = found
    assert state["result"]["status"] == "RUNTIME_ERROR", state["result"]
    reason = state["result"]["reason"]
    # The parent reads nothing from the box: the verdict is its own sentence, none of the user's words.
    assert reason == ("the program crashed in case 'n=1': aborted (SIGABRT), often an allocation beyond the "
                      "memory limit or a failed assertion"), reason
    output = state["result"]["summary"]["output"]  # the 60 MiB on stderr: only a capped tail of it
    assert output.startswith("[… ")
    assert output.endswith("x")
    assert len(output) <= EVENT_TEXT_CHARS
    for event in events:
        encoded = json.dumps(event["payload"])
        assert len(encoded) <= 2 * EVENT_TEXT_CHARS + 4 * EVENT_REASON_CHARS, (event["type"], len(encoded))


def test_the_compile_cache_stays_within_its_bytes_and_keeps_the_newest(tmp_path: Path):
    """Compile cache growth: twelve 8 MiB builds into a 24 MiB cache."""
    config = _own_agent(tmp_path)
    config.cache_max_bytes = 24 * MIB
    problem = load_problem("vector-add")
    builds = config.cache_dir / "builds"
    for nonce in range(12):
        result, _ = run_job(problem, source("cache_filler.cpp", NONCE=f"{nonce}-{uuid.uuid4().hex}"), "cpp",
                            "compile", config=config, cache_scope="user-a")
        assert result["status"] == "COMPILED", result
        total = sum(p.stat().st_size for p in builds.glob("*.so"))
        assert 0 < total <= 24 * MIB, total
    assert len(list(builds.glob("*.so"))) == 2  # about 8.1 MiB each: the two newest fit


def _own_agent(tmp_path: Path) -> AgentConfig:
    sandbox = detect_sandbox(preferred="bwrap")
    config = build_config(workdir=tmp_path / "agent", device="host", allow_insecure=True)
    config.sandbox = sandbox
    return config


# ---- a checkout under /usr -----------------------------------------------------------------------

def _fake_checkout(where: Path) -> Path:
    """What a platform checkout holds that a kernel must never read: var/secret_key and the agent."""
    shutil.copytree(ROOT / "agent", where / "agent", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(PROBLEMS_DIR / "vector-add", where / "problems" / "vector-add")
    (where / "pyproject.toml").write_text("[project]\nname = 'hipjudge'\n")
    (where / "var").mkdir()
    (where / "var" / "secret_key").write_text("platform-secret-key\n")
    return where


# In the test's own mount namespace: the fake checkout at $2, then the agent run from it ($3...).
MOUNT_CHECKOUT = """set -e
mount -t tmpfs -o size=1m tmpfs /usr/src
mkdir -p /usr/src/app
mount --bind "$1" "$2"
cd "$2"
"$3" -c 'import agent; print("agent from", agent.__file__)'
shift 2
exec "$@"
"""


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root to make a mount namespace")
@pytest.mark.parametrize("checkout", ["/usr/src/app", "/usr/share/doc"],
                         ids=["outside-the-bound-usr-dirs", "inside-a-bound-usr-dir"])
def test_a_checkout_under_usr_is_out_of_the_sandboxs_view(checkout: str, tmp_path: Path):
    """The agent runs from a checkout under /usr, as in the python image (/usr/src/app), or inside
    a directory the sandbox must bind (/usr/share, where only the mask hides it). The mount is
    made in a private mount namespace of the test: the host's /usr is never touched."""
    if not isinstance(detect_sandbox(preferred="bwrap"), BwrapSandbox):
        pytest.skip("bubblewrap is not usable here")
    fake = _fake_checkout(tmp_path / "checkout")
    kernel = tmp_path / "kernel.cpp"
    kernel.write_text(source("read_checkout_under_usr.cpp", CHECKOUT=checkout))
    command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", MOUNT_CHECKOUT, "sh", str(fake), checkout,
               sys.executable, "-m", "agent", "run", str(kernel), "--problem", "vector-add", "--mode", "check",
               "--problems-dir", "problems", "--workdir", str(tmp_path / "work"), "--json"]
    env = {**os.environ, "PYTHONPATH": checkout, "HIPJUDGE_SANDBOX": "bwrap"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=150, env=env)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    results = [e["payload"] for e in lines if e["type"] == "RESULT"]
    assert f"agent from {checkout}/agent/__init__.py" in done.stdout, done.stdout[:2000]
    assert results, (done.stdout[-2000:], done.stderr[-2000:])
    assert results[0]["status"] == "CHECKED", (done.stdout[-2000:], done.stderr[-2000:])
    assert "platform-secret-key" not in done.stdout

"""Fixtures for judging real jobs on the host device through the real compiler and bwrap sandbox.

Everything here is prefixed `judge_` so other agent test modules can add their own fixtures.
`judge_config` is one AgentConfig per test session (a fresh workdir and compile cache), so the
hostile corpus and the health check after it run against the same agent.
"""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from agent.config import AgentConfig, build_config
from agent.judging.judge import JobSpec, judge
from agent.problems.bundle import Problem, load_problem_dir
from agent.protocol import event_problems
from agent.sandbox.modes import SandboxUnavailable, detect_sandbox

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS_DIR = ROOT / "problems"


@dataclass(frozen=True)
class JudgeEvent:
    kind: str
    data: dict[str, Any]
    at: float  # time.monotonic() when it was emitted


def descriptors_open_on(matches: Callable[[str], bool]) -> int:
    """How many of this process's descriptors are open on what `matches` accepts (the target of
    /proc/self/fd/N). A test counts its own kind only: pytest-xdist runs many tests in one process,
    and the garbage collector closing an earlier test's file meanwhile once made a count of every
    descriptor drop by one in a make test."""
    held = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            held += matches(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue  # closed since the listing (the listing's own descriptor among them)
    return held


def problem_dirs() -> list[Path]:
    """Every problem folder, found at collection time: new problems are picked up automatically.
    (Each test loads its own problem, so one broken bundle fails only its own tests.)"""
    return sorted(d for d in PROBLEMS_DIR.iterdir() if (d / "problem.yaml").is_file())


@cache
def load_problem(slug: str) -> Problem:
    return load_problem_dir(PROBLEMS_DIR / slug)


def job_dir_name(job_id: str) -> str:
    """The name judge() gives a job's directory under <workdir>/jobs."""
    return hashlib.sha256(job_id.encode()).hexdigest()[:24]


def run_job(problem: Problem, source: str, language: str = "cpp", mode: str = "benchmark",
            limits: Mapping[str, Any] | None = None, *, config: AgentConfig,
            job_id: str | None = None, cache_scope: str | None = "tests",
            ranked_seed: int | None = None, seed: int | None = None) -> tuple[dict[str, Any], list[JudgeEvent]]:
    """Judge one submission synchronously; returns the RESULT payload and every event in order.
    Every job is one user's (`cache_scope`) unless told otherwise: builds are cached between them.
    A leaderboard job gets `ranked_seed`, or a random one; `seed` is the job's (the public check's)."""
    body: dict[str, Any] = {"id": job_id or f"test-{uuid.uuid4().hex}", "problem": problem.to_bundle(),
                            "language": language, "source": source, "mode": mode, "cache_scope": cache_scope,
                            "seed": seed}
    if mode == "leaderboard":
        body["ranked_seed"] = ranked_seed if ranked_seed is not None else random.randrange(2**63)
    if limits is not None:
        body["limits"] = dict(limits)
    spec = JobSpec.from_request(body)
    events: list[JudgeEvent] = []
    judge(spec, config, lambda kind, data: events.append(JudgeEvent(kind, data, time.monotonic())),
          threading.Event())
    results = [e for e in events if e.kind == "RESULT"]
    assert len(results) == 1, [e.kind for e in events]
    assert events[-1].kind == "RESULT", [e.kind for e in events]
    # Every job the agent's tests judge speaks protocol v1: known event types, each payload its type's keys.
    assert [problem for e in events for problem in event_problems(e.kind, e.data)] == []
    return results[0].data, events


def processes_mentioning(marker: str) -> list[str]:
    """Processes whose command line or mounts name `marker` (a job's directory: bwrap's command
    line binds it, and every process inside that sandbox has it in its mountinfo)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for name in ("cmdline", "mountinfo"):
            try:
                data = Path(f"/proc/{entry.name}/{name}").read_bytes()
            except OSError:
                continue
            if marker.encode() in data:
                cmd = data.replace(b"\0", b" ").decode(errors="replace")[:200] if name == "cmdline" else name
                found.append(f"{entry.name}: {cmd}")
                break
    return found


def wait_until_no_process_mentions(marker: str, timeout_s: float = 10.0) -> list[str]:
    """Poll (bounded) until no process names `marker`; returns what is left at the deadline."""
    deadline = time.monotonic() + timeout_s
    left = processes_mentioning(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = processes_mentioning(marker)
    return left


@pytest.fixture(scope="session")
def judge_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentConfig]:
    """A host-device agent with the real bubblewrap sandbox, in a fresh workdir."""
    try:
        sandbox = detect_sandbox(preferred="bwrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap is not usable on this machine (install bubblewrap, allow user "
                    f"namespaces): {exc}")
    config = build_config(workdir=tmp_path_factory.mktemp("judge-agent"), device="host", allow_insecure=True)
    config.sandbox = sandbox  # HIPJUDGE_SANDBOX in the environment must not swap the sandbox under test
    yield config


@pytest.fixture
def judge_run_job(judge_config: AgentConfig) -> Callable[..., tuple[dict[str, Any], list[JudgeEvent]]]:
    """`judge_run_job(problem, source, language="cpp", mode="benchmark", limits=None)` on judge_config."""

    def run(problem: Problem, source: str, language: str = "cpp", mode: str = "benchmark",
            limits: Mapping[str, Any] | None = None, **kwargs: Any) -> tuple[dict[str, Any], list[JudgeEvent]]:
        kwargs.setdefault("config", judge_config)
        return run_job(problem, source, language, mode, limits, **kwargs)

    return run


@pytest.fixture
def job_box(tmp_path: Path) -> Path:
    """An empty box as judge() lays it out (<job dir>/box): the sandbox writes its log beside it."""
    made = tmp_path / "job" / "box"
    made.mkdir(parents=True)
    return made

"""The compile cache: bounded in bytes, least recently used out first, one scope per user."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.judging.compile_cache import CompileCache
from agent.judging.judge import JobSpec, JobSpecError
from tests.agent.conftest import load_problem, run_job

KEYS = [CompileCache.key(scope="s", language="cpp", version="g++ 12", flags=["-O3"], source=str(i)) for i in range(4)]


def library(tmp_path: Path, size: int) -> Path:
    path = tmp_path / f"lib-{uuid.uuid4().hex}.so"
    path.write_bytes(os.urandom(size))
    return path


def age(cache: CompileCache, key: str, seconds_ago: float) -> None:
    then = time.time() - seconds_ago
    os.utime(cache.directory / f"{key}.so", (then, then))


def test_the_least_recently_used_entries_go_first_when_the_bytes_run_out(tmp_path):
    cache = CompileCache(tmp_path / "builds", max_bytes=3000)
    for i, key in enumerate(KEYS[:3]):
        cache.put(key, library(tmp_path, 1000))
        age(cache, key, 100 - i)  # KEYS[0] oldest
    target = tmp_path / "solution.so"
    assert cache.get(KEYS[0], target)  # used now: the newest
    cache.put(KEYS[3], library(tmp_path, 1000))
    present = {p.stem for p in (tmp_path / "builds").glob("*.so")}
    assert present == {KEYS[0], KEYS[2], KEYS[3]}
    assert cache.total_bytes() == 3000


def test_a_build_larger_than_the_whole_cache_is_not_kept_and_evicts_nothing(tmp_path):
    cache = CompileCache(tmp_path / "builds", max_bytes=2000)
    cache.put(KEYS[0], library(tmp_path, 1500))
    cache.put(KEYS[1], library(tmp_path, 2500))
    assert {p.stem for p in (tmp_path / "builds").glob("*.so")} == {KEYS[0]}
    assert not cache.get(KEYS[1], tmp_path / "solution.so")


def test_a_hit_is_a_byte_for_byte_copy(tmp_path):
    cache = CompileCache(tmp_path / "builds", max_bytes=10_000)
    built = library(tmp_path, 1234)
    cache.put(KEYS[0], built)
    assert cache.get(KEYS[0], tmp_path / "solution.so")
    assert (tmp_path / "solution.so").read_bytes() == built.read_bytes()


def test_an_older_agents_unscoped_builds_are_removed_at_start(tmp_path):
    from agent.config import build_config

    cache_dir = tmp_path / "agent" / "cache"
    cache_dir.mkdir(parents=True)
    legacy, helper = cache_dir / f"{KEYS[0]}.so", cache_dir / "evict-0123456789abcdef01234567.so"
    legacy.write_bytes(b"old build")
    helper.write_bytes(b"our helper")
    build_config(workdir=tmp_path / "agent", device="host", allow_insecure=True)
    assert not legacy.exists()
    assert helper.exists()


def test_the_scope_is_part_of_the_key():
    def key(scope: str) -> str:
        return CompileCache.key(scope=scope, language="cpp", version="v", flags=[], source="int x;")

    assert key("user-a") != key("user-b")
    assert key("user-a") == key("user-a")


@pytest.mark.parametrize("scope", ["", "a" * 129, "has space", "../x", 7])
def test_a_malformed_cache_scope_is_refused_naming_the_field(scope):
    body = {"id": "j1", "problem": load_problem("vector-add").to_bundle(), "language": "cpp",
            "source": "int x;", "cache_scope": scope}
    with pytest.raises(JobSpecError, match="^cache_scope:"):
        JobSpec.from_request(body)


VECTOR_ADD = """#include <cstddef>
// {nonce}
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {{
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}}
"""


@pytest.mark.integration
def test_whether_a_build_was_cached_is_never_shown_across_users(judge_config: AgentConfig):
    problem = load_problem("vector-add")
    source = VECTOR_ADD.format(nonce=uuid.uuid4().hex)

    def cached(scope: str | None) -> bool:
        result, events = run_job(problem, source, "cpp", "compile", config=judge_config, cache_scope=scope)
        assert result["status"] == "COMPILED", result
        return next(e.data for e in events if e.kind == "COMPILE_RESULT")["cached"]

    first_user, second_user = f"u-{uuid.uuid4().hex}", f"u-{uuid.uuid4().hex}"
    assert cached(first_user) is False
    assert cached(first_user) is True  # the author's own rebuild is served from the cache
    assert cached(second_user) is False  # another user learns nothing: a real compile
    assert cached(None) is False
    assert cached(None) is False  # no scope (agent run): never cached


def test_the_hip_target_probe_is_remembered_per_hipcc_in_the_build_folder(tmp_path, monkeypatch):
    """Each agent process would otherwise compile a probe per candidate target at its start."""
    from agent.judging import compiler

    probes: list[str] = []
    monkeypatch.setattr(compiler, "toolchain", lambda language: compiler.Toolchain("hip", "hipcc", "HIP 6.1"))
    monkeypatch.setattr(compiler, "_probe_hip_arch", lambda tc: probes.append(tc.version) or "gfx90a")
    compiler.newest_hip_arch.cache_clear()
    try:
        assert compiler.newest_hip_arch(tmp_path) == "gfx90a"
        assert probes == ["HIP 6.1"]
        compiler.newest_hip_arch.cache_clear()  # a new agent process
        assert compiler.newest_hip_arch(tmp_path) == "gfx90a"
        assert probes == ["HIP 6.1"]  # read, not probed

        (remembered,) = tmp_path.glob("hip-arch-*.txt")
        remembered.write_text("gfx1337; rm -rf /")  # not a name the agent would have written: probed again
        compiler.newest_hip_arch.cache_clear()
        assert compiler.newest_hip_arch(tmp_path) == "gfx90a"
        assert len(probes) == 2

        monkeypatch.setattr(compiler, "toolchain", lambda language: compiler.Toolchain("hip", "hipcc", "HIP 6.2"))
        compiler.newest_hip_arch.cache_clear()  # another hipcc: its own probe
        assert compiler.newest_hip_arch(tmp_path) == "gfx90a"
        assert probes[-1] == "HIP 6.2"
    finally:
        compiler.newest_hip_arch.cache_clear()

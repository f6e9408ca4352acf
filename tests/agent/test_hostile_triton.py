"""The hostile corpus for Triton submissions (tests/agent/corpus_triton/): Python- and Triton-level
attacks on the free check, judged in Triton's interpreter in the same sandbox as every child, each
with the verdict it must get. Every file is a vector-add launcher; most report what their attack
reached in c[0] (a kernel stores it), so a WRONG_ANSWER "c[0] = 0" proves it reached nothing.
The host side is checked as for the C++ corpus (test_hostile.py): nothing written, no connection,
no token in the events, nothing of the job left behind.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest

from tests.agent.conftest import job_dir_name, load_problem, run_job, wait_until_no_process_mentions
from tests.agent.test_hostile import (  # noqa: F401 - judge_target is a fixture
    Check,
    Hostile,
    Target,
    _no_connection,
    _nothing_reached_outside,
    _nothing_written,
    _token_not_leaked,
    judge_target,
    verdict,
)

pytest.importorskip("triton")
pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

CORPUS = Path(__file__).resolve().parent / "corpus_triton"


def _contained(t: Target, result: dict, events: list) -> None:
    _nothing_reached_outside(t, result, events)
    _nothing_written(t, result, events)
    _no_connection(t, result, events)
    _token_not_leaked(t, result, events)


def _output_capped(t: Target, result: dict, events: list) -> None:
    output = result["summary"].get("output", "")
    assert len(output.encode()) <= 16 * 1024 + 200, len(output)


def _output_cut(t: Target, result: dict, events: list) -> None:
    output = result["summary"].get("output", "")
    assert output.startswith("[… ") and "earlier bytes of output cut]" in output.splitlines()[0], output[:200]
    assert re.search(r"^\(\d+, 0, 0\)\s+x:", output, re.MULTILINE), output[:300]  # the last prints themselves


def _all(*checks: Check) -> Check:
    def every(t: Target, result: dict, events: list) -> None:
        for check in checks:
            check(t, result, events)

    return every


NEVER_WRITTEN = ("never written",)
CASES = [
    Hostile("os_fork.py", "WRONG_ANSWER", ("c[0] = 0 ",), check=_nothing_reached_outside),
    Hostile("ctypes_libc.py", "WRONG_ANSWER", ("c[0] = 0 ",), check=_contained),
    Hostile("read_proc.py", "WRONG_ANSWER", ("c[0] = 0 ",), check=_all(_nothing_reached_outside, _token_not_leaked)),
    Hostile("gc_introspection.py", "WRONG_ANSWER", ("c[0] = 0 ",), check=_nothing_reached_outside),
    Hostile("thread_after_return.py", "WRONG_ANSWER", NEVER_WRITTEN),
    Hostile("patch_the_harness.py", ("WRONG_ANSWER", "RUNTIME_ERROR"), ("test 'n=1'",)),
    Hostile("cache_by_content.py", "CHECKED"),
    Hostile("second_file.py", "CHECKED", check=_nothing_written),
    Hostile("inline_asm.py", "RUNTIME_ERROR", ("inline_asm not supported in interpreter mode",)),
    # What an honest user who prints from a kernel expects: the kernel is judged as it computes
    # (a right vector add: CHECKED), and the output shown is its last 16 KiB, the rest said cut.
    Hostile("device_print_flood.py", "CHECKED", limits={"output_kb": 16}, check=_all(_output_capped, _output_cut)),
    Hostile("huge_autotune.py", "COMPILE_ERROR", ("4096 configurations; at most 16",)),
    Hostile("constexpr_bomb.py", "COMPILE_ERROR", ("took longer than 5 s",), limits={"compile_s": 5}),
    # A host agent's compile has no writable Triton cache: these are honest vector adds there. On a
    # GPU agent's compile: test_a_compile_that_floods_the_gpu_cache_is_stopped_with_a_compile_error.
    Hostile("cache_flood_bytes.py", "CHECKED", check=_nothing_written),
    Hostile("cache_flood_files.py", "CHECKED", check=_nothing_written),
]


def test_every_triton_corpus_file_has_an_expectation() -> None:
    assert sorted(c.file for c in CASES) == sorted(p.name for p in CORPUS.glob("*.py"))


@pytest.mark.parametrize("case", CASES, ids=[c.file.removesuffix(".py") for c in CASES])
def test_a_hostile_triton_submission_is_contained_and_classified(case: Hostile,
                                                                 judge_target: Target) -> None:  # noqa: F811
    problem = load_problem("vector-add")
    job_id = f"hostile-triton-{uuid.uuid4().hex}"
    descriptors = len(os.listdir("/proc/self/fd"))
    source = (CORPUS / case.file).read_text()
    for key, value in judge_target.substitutions.items():
        source = source.replace(f"@{key}@", value)
    result, events = run_job(problem, source, "triton", case.mode, case.limits or None,
                             config=judge_target.config, job_id=job_id)
    if isinstance(case.status, tuple):
        assert result["status"] in case.status, verdict(result)
    else:
        assert result["status"] == case.status, verdict(result)
    for part in case.reason:
        assert part in result["reason"], result["reason"]
    if case.check is not None:
        case.check(judge_target, result, events)
    assert not wait_until_no_process_mentions(job_dir_name(job_id))
    assert not (judge_target.config.jobs_dir / job_dir_name(job_id)).exists()
    assert len(os.listdir("/proc/self/fd")) <= descriptors


@pytest.mark.parametrize("file", ["cache_flood_bytes.py", "cache_flood_files.py"])
def test_a_compile_that_floods_the_gpu_cache_is_stopped_with_a_compile_error(file: str,
                                                                             judge_target: Target) -> None:  # noqa: F811
    """On a GPU agent the compile writes every case's kernels into a writable Triton cache folder
    (agent.languages.triton.precompile). A launcher that fills it past an entry's bounds is stopped
    while it writes, with a compile error that says why; nothing of it is kept or left behind."""
    from agent.judging.compiler import compile_solution
    from agent.languages.triton.precompile import GpuTarget
    from agent.sandbox.boxfs import fresh_box
    from agent.sandbox.resources import ResourceLimits

    config = judge_target.config
    job = config.jobs_dir / f"flood-{uuid.uuid4().hex}"
    result = compile_solution(problem=load_problem("vector-add"), language="triton", source=(CORPUS / file).read_text(),
                              box=fresh_box(job, "compile-box"), cache_dir=config.cache_dir, sandbox=config.sandbox,
                              limits=ResourceLimits(compile_s=180), arch=None, cache_scope=f"flood-{uuid.uuid4().hex}",
                              triton_gpu=GpuTarget("hip", "gfx942", 64, "/opt/rocm/lib/libamdhip64.so"))
    assert not result.ok and not result.timed_out, result.output
    assert "the compiled kernels take more than 4096 files or 64 MiB" in result.output, result.output
    assert result.triton_cache is None
    assert not (job / "compile").exists()  # the folder the sandbox wrote is gone

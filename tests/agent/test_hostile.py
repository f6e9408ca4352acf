"""The hostile corpus: submissions that attack the judge, each contained and classified.

Every file in tests/agent/corpus/ is a vector-add submission
(`extern "C" void solution(const float* a, const float* b, float* c, size_t n)`) judged on the
host device through the real compiler and bubblewrap sandbox. Most probes compute the right answer
only when their attack failed, so the verdict itself proves containment; the test checks the
host side too (no file written or changed, no connection received, no process left behind, no
descriptor left open in the agent). After the whole corpus the same agent still accepts a correct
solution, and its own files are unchanged. The security reviews' attacks are the files
named h1_* (symlinks planted in the box), h2_* (a judge that hangs, or returns while its sandbox
runs on), m5_* (an unbounded result channel), forged_benchmark, python_c_api and
patch_evict_in_memory (a forged score), corpus_matmul/precompute_fresh_sets.cpp (the fresh-input
check defeated), relay_precompute and done_before_go (the clock), ranked_*_channel (the secrets),
stdout_fallocate (the disk), socket_families, and corpus_matmul/patch_under_ratio.cpp (work carried
over).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent.config import AgentConfig
from agent.judging.ranked import RANKED_RUNS
from agent.problems.bundle import parse_definition
from tests.agent.conftest import (
    PROBLEMS_DIR,
    JudgeEvent,
    job_dir_name,
    load_problem,
    processes_mentioning,
    run_job,
    wait_until_no_process_mentions,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

CORPUS = Path(__file__).resolve().parent / "corpus"
ENV_NAME = "HIPJUDGE_AGENT_TOKEN"


@dataclass
class Target:
    """What the corpus attacks, set up on the host before the corpus runs."""

    config: AgentConfig
    listener: socket.socket
    token: str
    token_path: Path
    hidden_token_path: Path
    other_job_secret: Path
    write_targets: list[Path]
    canaries: dict[Path, bytes] = field(default_factory=dict)  # files outside every box, and their content
    substitutions: dict[str, str] = field(default_factory=dict)
    agent_digest: str = ""  # of the agent package's files before the corpus

    def source(self, name: str) -> str:
        text = (CORPUS / name).read_text()
        for key, value in self.substitutions.items():
            text = text.replace(f"@{key}@", value)
        leftover = re.findall(r"@[A-Z_]+@", text)
        assert not leftover, f"{name}: unknown placeholders {leftover}"
        return text

    def connections(self) -> int:
        """Connections that reached the listener (non-blocking accept until none is pending)."""
        count = 0
        for _ in range(100):
            try:
                conn, _ = self.listener.accept()
            except (BlockingIOError, TimeoutError):
                return count
            conn.close()
            count += 1
        return count


@pytest.fixture(scope="module")
def judge_target(judge_config: AgentConfig, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    host_dir = tmp_path_factory.mktemp("hostile-host")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.setblocking(False)

    # The token as the server would keep it: a file in the workdir, hidden from every sandbox. A
    # second copy sits in a directory the sandbox does bind (the Python tree), where only the mask
    # keeps it from the child. Underscores: leaked into C++, the whole token would be quoted back.
    token = f"hipjudge_token_{uuid.uuid4().hex}"
    token_path = judge_config.workdir / "agent.token"
    token_path.write_text(token)
    hidden_token_path = Path(sys.prefix).resolve() / f"hipjudge-corpus-token-{uuid.uuid4().hex[:12]}"
    hidden_token_path.write_text(token)
    judge_config.sandbox.hide(token_path)
    judge_config.sandbox.hide(hidden_token_path)

    other_job = f"other{uuid.uuid4().hex[:12]}"
    other_job_secret = judge_config.jobs_dir / other_job / "secret.txt"
    other_job_secret.parent.mkdir(parents=True)
    other_job_secret.write_text(token)

    agent_dir = PROBLEMS_DIR.parent / "agent"
    write_targets = [host_dir / "escaped.txt", agent_dir / "pwned.py",
                     Path(sys.prefix).resolve() / "pwned-by-hipjudge-corpus",
                     judge_config.cache_dir / "pwned.so", judge_config.build_dir / "pwned.so",
                     Path("/usr/pwned-by-hipjudge-corpus")]
    # Canaries where the planted symlinks point: the workdir (relative to a box), a stand-in for the
    # platform's database, and a file by its absolute path. hj-canary2 must never appear.
    (judge_config.workdir / "var").mkdir(exist_ok=True)
    canaries = {judge_config.workdir / "hj-canary": b"canary in the workdir\n",
                judge_config.workdir / "var" / "db.sqlite3": b"SQLite format 3\0 stand-in\n",
                host_dir / "hj-canary": b"canary by absolute path\n"}
    for path, content in canaries.items():
        path.write_bytes(content)
    write_targets.append(host_dir / "hj-canary2")
    target = Target(judge_config, listener, token, token_path, hidden_token_path, other_job_secret,
                    write_targets, canaries, agent_digest=agent_files_digest())
    target.substitutions = {
        "CANARY": str(host_dir / "hj-canary"),
        "HOST_DIR": str(host_dir),
        "PORT": str(listener.getsockname()[1]),
        "PATH": str(write_targets[0]),
        "AGENT_DIR": str(agent_dir),
        "PYTHON_PREFIX": str(Path(sys.prefix).resolve()),
        "CACHE_DIR": str(judge_config.cache_dir),
        "BUILD_DIR": str(judge_config.build_dir),
        "TOKEN_PATH": str(token_path),
        "HIDDEN_TOKEN_PATH": str(hidden_token_path),
        "WORKDIR": str(judge_config.workdir),
        "ENV_NAME": ENV_NAME,
        "OTHER_JOB": other_job,
        "OTHER_JOB_PATH": str(other_job_secret),
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ENV_NAME, token)  # the agent's own environment holds the token
        try:
            yield target
        finally:
            listener.close()
            hidden_token_path.unlink(missing_ok=True)
            for path in write_targets:  # only there if containment failed (the tests say so)
                if path.name.startswith(("pwned", "escaped", "hj-canary")):
                    path.unlink(missing_ok=True)


# ---- what each submission must get ---------------------------------------------------------------

Check = Callable[[Target, dict[str, Any], list[JudgeEvent]], None]


@dataclass(frozen=True)
class Hostile:
    file: str
    status: str | tuple[str, ...] | None  # None: anything but ACCEPTED/CHECKED; a tuple: one of these
    reason: tuple[str, ...] = ()  # substrings of the RESULT reason
    mode: str = "check"
    limits: dict[str, Any] = field(default_factory=dict)
    check: Check | None = None


def agent_files_digest() -> str:
    """One hash over every file of the agent package (names and contents)."""
    digest = hashlib.sha256()
    root = PROBLEMS_DIR.parent / "agent"
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _reported_c0(result: dict[str, Any]) -> int:
    """The value the kernel stored in c[0]: how the fork and flood probes report what they saw."""
    match = re.search(r"c\[0\] = (-?\d+)", result["reason"])
    assert match, result["reason"]
    return int(match.group(1))


def _no_process_started(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    # 4095 forks without any limit. RLIMIT_NPROC does not bind root (the agent's user on a GPU VM),
    # so the sandbox refuses new processes outright (threads are still allowed).
    assert _reported_c0(result) == 0, f"{_reported_c0(result)} forks succeeded"


def _flood_stopped_and_output_capped(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    assert 0 < _reported_c0(result) <= 64, f"{_reported_c0(result)} MiB of output were written"
    output = result["summary"].get("output", "")
    assert "xxxxxxxx" in output  # it is the flood, kept in part
    assert len(output.encode()) <= 16 * 1024 + 200, len(output)
    assert "earlier bytes of output cut" in output


def _no_connection(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    assert t.connections() == 0, "the submission connected to the host"


def _nothing_written(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    written = [str(p) for p in t.write_targets if p.exists()]
    assert not written, f"the submission wrote {written}"


def _token_not_leaked(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    assert all(t.token not in repr(e.data) for e in events), "the token appears in an event"


def _ranked_pass_failed_after_the_public_benchmark(t: Target, result: dict[str, Any],
                                                   events: list[JudgeEvent]) -> None:
    """Tuned to what the public cases show: it passes them all, and only the ranked pass fails it,
    saying where without the secret values."""
    assert [e.data["status"] for e in events if e.kind == "STATUS"][-1] == "RANKING"
    assert len([e for e in events if e.kind == "BENCHMARK_RESULT"]) == 2
    assert not [e for e in events if e.kind == "RANKED_RESULT"]
    ranked = result["summary"]["ranked"]
    assert ranked["passed"] is False
    assert ranked["score_ms"] is None
    assert ranked["reason"] in result["reason"]
    assert "expected" not in result["reason"]


def _values_withheld(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    """Nothing the kernel could choose by looking at the secret inputs: no element, no count."""
    _ranked_pass_failed_after_the_public_benchmark(t, result, events)
    assert "withheld" in result["reason"]
    assert "[" not in result["reason"], result["reason"]
    assert not re.search(r"\d+ of \d+", result["reason"]), result["reason"]


def _nothing_printed_is_shown(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    _ranked_pass_failed_after_the_public_benchmark(t, result, events)
    assert "LEAKED-INPUT" not in json.dumps([e.data for e in events])


def _tests_passed_before(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    tests = result["summary"]["tests"]
    assert tests
    assert all(case["passed"] for case in tests)  # caching only shows in the benchmark


def _stopped_by_a_compile_limit(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    # g++ either reads /dev/zero until the time limit, or asks for the whole file at once and is
    # refused by the compile memory limit; which one depends on the machine's g++.
    reason = result["reason"]
    assert "compilation took longer than 3 s" in reason or "out of memory" in reason, reason


def _canaries_untouched(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    for path, content in t.canaries.items():
        assert path.read_bytes() == content, f"{path} was changed"
    _nothing_written(t, result, events)
    assert not (t.config.jobs_dir / "hj-canary").exists()


def _events_stay_small(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    size = len(json.dumps([e.data for e in events]))
    assert size < 256 * 1024, f"{size} bytes of events"


def _buffers_still_evicted(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    # a, b and c of vector-add: 12 bytes per element
    flushed = {b["case"]: b["flush_bytes"] for b in result["summary"]["benchmarks"]}
    assert flushed == {"n=2^20": 12 << 20, "n=2^22": 12 << 22}


def _nothing_reached_outside(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    assert _reported_c0(result) == 0, f"{_reported_c0(result)} of the attempts succeeded"


def _how_it_failed_withheld(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    """The exit status or the signal is the kernel's to choose on the secret inputs: never shown."""
    _ranked_pass_failed_after_the_public_benchmark(t, result, events)
    assert not re.search(r"code|signal|SIG[A-Z]", result["reason"]), result["reason"]


def _where_it_wrote_withheld(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    _ranked_pass_failed_after_the_public_benchmark(t, result, events)
    assert "byte" not in result["reason"], result["reason"]
    assert "element" not in result["reason"], result["reason"]


def _no_single_run_is_shown(t: Target, result: dict[str, Any], events: list[JudgeEvent]) -> None:
    """Runs it paces by the secret inputs: their number is fixed beforehand, and neither the fastest,
    the slowest nor their spread is reported."""
    cases = [e.data for e in events if e.kind == "RANKED_RESULT"]
    assert cases, cases
    assert all(c["runs"] == RANKED_RUNS for c in cases), cases
    assert not [key for c in cases for key in ("min_ms", "max_ms", "std_ms", "rel_stderr") if key in c], cases


BENCH = {"mode": "benchmark", "limits": {"case_budget_s": 0.2}}
POISON_SEEN = ("still held the poison value when the call reported its end",)
RANKED = {"mode": "leaderboard", "limits": {"case_budget_s": 0.2}}

CASES = [
    # A case that must end with a verdict other than TIME_LIMIT_EXCEEDED keeps the default check limit
    # (30 s): with 3 or 5, an honest check of vector-add's cases up to n=2^20 ran past it on a loaded
    # machine (make test's six pytest processes on two cores). A hang still ends as a time limit.
    Hostile("fork_bomb.cpp", "WRONG_ANSWER", ("c[0] = ",), check=_no_process_started),
    Hostile("memory_bomb.cpp", "RUNTIME_ERROR", ("SIGABRT", "memory limit"), limits={"memory_mb": 1024}),
    Hostile("network_connect.cpp", "CHECKED", check=_no_connection),
    Hostile("write_outside_tmp.cpp", "CHECKED", check=_nothing_written),
    Hostile("read_token_file.cpp", "CHECKED", check=_token_not_leaked),
    Hostile("include_token_file.cpp", "COMPILE_ERROR", ("agent.token",), mode="compile", check=_token_not_leaked),
    Hostile("include_hidden_token.cpp", "COMPILE_ERROR", mode="compile", check=_token_not_leaked),
    Hostile("read_environment.cpp", "CHECKED", check=_token_not_leaked),
    Hostile("read_other_job.cpp", "CHECKED", check=_token_not_leaked),
    Hostile("flood_stdout.cpp", "WRONG_ANSWER", ("c[0] = ",), limits={"output_kb": 16},
            check=_flood_stopped_and_output_capped),
    Hostile("modify_inputs.cpp", "WRONG_ANSWER", ("modified its input a",)),
    Hostile("cached_result.cpp", "WRONG_ANSWER", POISON_SEEN, **BENCH, check=_tests_passed_before),
    Hostile("first_call_only.cpp", "WRONG_ANSWER", ("test 'n=1000' failed", "never written")),
    Hostile("sleep_past_limit.cpp", "TIME_LIMIT_EXCEEDED", ("3 s limit",), limits={"check_s": 3}),
    Hostile("exit_in_solution.cpp", "RUNTIME_ERROR", ("exited", "before solution() returned")),
    Hostile("kill_everything.cpp", "CHECKED"),
    Hostile("fake_results.cpp", "RUNTIME_ERROR", ("before solution() returned",)),
    Hostile("thread_after_return.cpp", "WRONG_ANSWER", ("never written",)),
    Hostile("spin_during_judge_work.cpp", "ACCEPTED", **RANKED),  # stopped while the judge works
    Hostile("include_dev_zero.cpp", "COMPILE_ERROR", mode="compile", limits={"compile_s": 3},
            check=_stopped_by_a_compile_limit),
    Hostile("smart_cache.cpp", "WRONG_ANSWER", POISON_SEEN, **BENCH, check=_tests_passed_before),
    Hostile("plant_evict_helper.cpp", "ACCEPTED", **BENCH, check=_buffers_still_evicted),
    # Symlinks planted in the box, a hung judge, forged scores, an unbounded result channel.
    Hostile("h1_symlink_spec.cpp", "ACCEPTED", **BENCH, check=_canaries_untouched),
    Hostile("h1_symlink_verified.cpp", "ACCEPTED", **BENCH, check=_canaries_untouched),
    Hostile("h2_results_fifo.cpp", "CHECKED"),
    Hostile("h2_deep_json_orphan.cpp", "TIME_LIMIT_EXCEEDED", ("3 s limit",), limits={"check_s": 3}),
    Hostile("forged_benchmark.cpp", "RUNTIME_ERROR", ("in case 'n=2^22' before solution() returned",), **BENCH),
    Hostile("python_c_api.cpp", "WRONG_ANSWER", ("benchmark 'n=2^22'", *POISON_SEEN), **BENCH),
    Hostile("patch_evict_in_memory.cpp", "ACCEPTED", **BENCH, check=_buffers_still_evicted),
    Hostile("m5_huge_result_line.cpp", "CHECKED", check=_events_stay_small),
    # Attacks of our own on the judge.
    Hostile("report_end_early.cpp", "WRONG_ANSWER", ("benchmark 'n=2^22'", *POISON_SEEN), **BENCH),
    Hostile("flood_control_channel.cpp", "RUNTIME_ERROR", ("broke the judge's protocol", "longer than 8192 bytes"),
            check=_events_stay_small),
    Hostile("pass_fds_to_parent.cpp", "RUNTIME_ERROR", ("broke the judge's protocol", "file descriptors")),
    Hostile("shrink_shared_memory.cpp", "ACCEPTED", **BENCH),
    Hostile("hard_links_in_box.cpp", "CHECKED"),
    Hostile("sockets_and_fifos_in_box.cpp", "ACCEPTED", **BENCH),
    Hostile("proc_and_signals.cpp", "CHECKED"),
    Hostile("plant_for_later_phase.cpp", "ACCEPTED", **BENCH),
    Hostile("token_pasted_stream.cpp", "COMPILE_ERROR", ("imports hipStreamCreate",), mode="compile"),
    Hostile("dlopen_split_strings.cpp", "COMPILE_ERROR", ("calls dlopen()",), mode="compile"),
    Hostile("tuned_to_public_shapes.cpp", "WRONG_ANSWER", ("ranked pass: ranked case 'n=3000017'",
                                                           "the result is wrong"), **RANKED, check=_values_withheld),
    Hostile("uninitialised_workspace.cpp", "WRONG_ANSWER", ("ranked case 'n=3000017'", "not deterministic"),
            **RANKED, check=_ranked_pass_failed_after_the_public_benchmark),
    Hostile("print_ranked_inputs.cpp", "RUNTIME_ERROR", ("ranked case 'n=3000017'", "the program failed"),
            **RANKED, check=_nothing_printed_is_shown),
    Hostile("huge_npy_header.cpp", "CHECKED"),
    Hostile("results_is_a_directory.cpp", "CHECKED"),
    Hostile("chmod_000_box.cpp", "CHECKED"),
    Hostile("out_of_bounds_write.cpp", "RUNTIME_ERROR",
            ("case 'n=1': out-of-bounds write past the end of buffer 'c' (4 bytes): bytes 4 to 7 were written, "
             "up to 4 bytes (1 element) past the end",)),
    Hostile("out_of_bounds_before.cpp", "RUNTIME_ERROR",
            ("case 'n=1': out-of-bounds write before the start of buffer 'c' (4 bytes): 4 bytes before its first",)),
    # Attacks on the clock, the secrets, the disk and through sockets.
    Hostile("relay_precompute.cpp", "ACCEPTED", **BENCH),  # no gain: bench/attacks.py
    Hostile("done_before_go.cpp", ("RUNTIME_ERROR", "WRONG_ANSWER"), ("'n=2^22'",), **BENCH),
    Hostile("ranked_index_channel.cpp", "WRONG_ANSWER", ("ranked case 'n=3000017'",), **RANKED,
            check=_values_withheld),
    Hostile("ranked_exit_code_channel.cpp", "RUNTIME_ERROR", ("ranked case 'n=3000017'", "the program failed"),
            **RANKED, check=_how_it_failed_withheld),
    Hostile("ranked_guard_channel.cpp", "RUNTIME_ERROR", ("ranked case 'n=3000017'", "a write outside a buffer"),
            **RANKED, check=_where_it_wrote_withheld),
    Hostile("ranked_pace_channel.cpp", "ACCEPTED", **RANKED, check=_no_single_run_is_shown),
    Hostile("stdout_fallocate.cpp", "WRONG_ANSWER", ("c[0] = 0",), check=_nothing_reached_outside),
    Hostile("socket_families.cpp", "WRONG_ANSWER", ("c[0] = 0",), check=_nothing_reached_outside),
    # Attacks of our own on the clock rule.
    Hostile("unasked_message.cpp", "RUNTIME_ERROR", ("broke the judge's protocol", "'n=2^22'"), **BENCH),
    Hostile("pause_evasion.cpp", "WRONG_ANSWER", ("c[0] = 0",), check=_nothing_reached_outside),
    # No gain (bench/attacks.py). Its thread, spinning on a core, competes with its own kernel: on a
    # loaded machine its calls on fresh inputs can lose the 3x comparison, which then refuses it.
    Hostile("prefetch_after_evict.cpp", ("ACCEPTED", "RUNTIME_ERROR"), **BENCH),
]


def test_every_corpus_file_has_an_expectation():
    files = [c.file for c in CASES]
    assert sorted(files) == sorted(p.name for p in CORPUS.glob("*.cpp"))
    assert len(CASES) >= 58


def verdict(result: dict[str, Any]) -> str:
    """The status and the reason whole (pytest cuts a long dict short): a timing refusal names every
    time it compared."""
    return f"{result['status']}: {result.get('reason')}"


@pytest.mark.parametrize("case", CASES, ids=[c.file.removesuffix(".cpp") for c in CASES])
def test_a_hostile_submission_is_contained_and_classified(case: Hostile, judge_target: Target):
    problem = load_problem("vector-add")
    job_id = f"hostile-{uuid.uuid4().hex}"
    descriptors = len(os.listdir("/proc/self/fd"))
    result, events = run_job(problem, judge_target.source(case.file), "cpp", case.mode, case.limits or None,
                             config=judge_target.config, job_id=job_id)
    if case.status is None:
        assert result["status"] not in ("ACCEPTED", "CHECKED"), result
    elif isinstance(case.status, tuple):
        assert result["status"] in case.status, verdict(result)
    else:
        assert result["status"] == case.status, verdict(result)
    for part in case.reason:
        assert part in result["reason"], result["reason"]
    if case.check is not None:
        case.check(judge_target, result, events)
    # Contained: nothing of the sandbox outlives the job, the job's directory is gone, and the agent
    # holds no descriptor more than before (memfds, sockets, or what the child tried to pass it).
    assert not wait_until_no_process_mentions(job_dir_name(job_id))
    assert not (judge_target.config.jobs_dir / job_dir_name(job_id)).exists()
    assert len(os.listdir("/proc/self/fd")) <= descriptors


@pytest.mark.parametrize("file, status", [("incremental_update.cpp", "RUNTIME_ERROR"),
                                          ("precompute_fresh_sets.cpp", "RUNTIME_ERROR"), (None, "ACCEPTED")],
                         ids=["incremental_update", "precompute_fresh_sets", "honest"])
def test_a_matmul_that_patches_its_last_result_is_caught_by_the_calls_on_fresh_inputs(
        file: str | None, status: str, judge_target: Target):
    """Every timed run changes 64 input elements: a kernel that remembers the last inputs and
    result can patch C with rank-1 updates and be correct in O(changes x N). Only calls on entirely
    fresh inputs show what the work really costs. 384^3 makes the gap ~10x; the honest solution on
    the same case shows the check does not fire on real work."""
    base = load_problem("matmul-fp32")
    definition = {**base.definition, "tests": base.definition["tests"][:3],
                  "benchmarks": [{"name": "384x384x384", "devices": ["host"],
                                  "params": {"M": 384, "N": 384, "K": 384}}]}
    problem = parse_definition(definition, base.reference_source)
    path = CORPUS.parent / "corpus_matmul" / file if file else PROBLEMS_DIR / "matmul-fp32" / "solutions" / "cpp.cpp"
    result, _ = run_job(problem, path.read_text(), "cpp", "benchmark", {"case_budget_s": 0.5},
                        config=judge_target.config)
    assert result["status"] == status, verdict(result)
    if file:
        assert "the work must not be carried over from earlier calls" in result["reason"]


def test_a_matmul_that_patches_its_last_result_under_the_fresh_check_ranks_as_it_really_is(judge_target: Target):
    """Padded to pass the public benchmark's 3x fresh-input check (it does: the public benchmark
    does not rank); in the ranked pass every timed run is on new inputs, so the patch never applies
    and the result is the kernel's real speed (bench/attacks.py: within noise of the honest loop)."""
    base = load_problem("matmul-fp32")
    bench = {"name": "256x256x256", "devices": ["host"], "params": {"M": 256, "N": 256, "K": 256}}
    ranked = {"name": "200x300x250", "devices": ["host"], "params": {"M": 200, "N": 300, "K": 250}}
    definition = {**base.definition, "tests": base.definition["tests"][:3], "benchmarks": [bench],
                  "ranked": [ranked, *(c for c in base.definition["ranked"] if "host" not in c["devices"])]}
    problem = parse_definition(definition, base.reference_source)
    source = (CORPUS.parent / "corpus_matmul" / "patch_under_ratio.cpp").read_text()
    result, events = run_job(problem, source, "cpp", "leaderboard", {"case_budget_s": 0.3}, config=judge_target.config)
    assert result["status"] == "ACCEPTED", verdict(result)
    assert [e.data["runs"] for e in events if e.kind == "RANKED_RESULT"] == [RANKED_RUNS]


def test_the_agent_still_accepts_a_correct_solution_after_the_corpus(judge_target: Target):
    problem = load_problem("vector-add")
    source = (PROBLEMS_DIR / "vector-add" / "solutions" / "cpp.cpp").read_text()
    result, _ = run_job(problem, source, "cpp", "benchmark", {"case_budget_s": 0.2}, config=judge_target.config)
    assert result["status"] == "ACCEPTED", verdict(result)
    assert judge_target.other_job_secret.read_text() == judge_target.token  # untouched
    assert agent_files_digest() == judge_target.agent_digest  # the agent's own files are untouched
    _canaries_untouched(judge_target, result, [])
    assert judge_target.connections() == 0
    assert not processes_mentioning(str(judge_target.config.workdir))

"""Agent protocol v1: the words the agent and the platform share, defined here and nowhere else.

- jobs: the request a job starts from (JobRequest), the states it passes through, the statuses of
  its stages and of its verdict, and those that mean success;
- events: their names (EVENT_TYPES) and a typed payload for each (STATUS ... RESULT), the bounds on
  what an event may carry (json_safe, cut_text);
- the HTTP API (agent.server): what each endpoint answers (Health, JobDescription, EventsReply,
  JobsReply, ErrorReply), and the JSON lines of `python -m agent jobs` (AgentReady, JobLine);
- beside them, the constants the platform reads of the agent: the resource limits a job may ask for
  and their ceilings, the emulator's and Triton interpreter's case budgets, the speed-of-light
  arithmetic.

With agent.problems (problem bundles and their formulas) this is the only part of the agent the
platform imports (tests/test_dependencies.py). Importing it loads no judging, harness, device or
sandbox process code and no NumPy: settings import it, and web and worker processes start without
either. The CLI (its own distribution, cli/) keeps a copy of the event names and statuses in
cli/protocol.py, which tests/cli/test_protocol_copy.py holds equal to this module.

How to add an event type: docs/adding-an-event-type.md.
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired from evaluated annotations only
# (Python 3.11), and the tests read each payload's required and optional keys.
import itertools
import math
from typing import Any, NotRequired, TypedDict

from agent.emulator.budget import EMULATED_CASE_BYTES
from agent.emulator.target import EMULATED_TARGETS
from agent.languages.triton.budget import INTERPRETED_CASE_BYTES, MAX_TRITON_AUTOTUNE_CONFIGS
from agent.problems.roofline import DEFAULT_PEAKS, FLOPS_TYPES, Floor, Peaks, floor, flops_type_of, geometric_floor
from agent.sandbox.resources import CEILINGS, ResourceLimits

__all__ = [
    "ACTIVE_STATES", "BENCHMARK_RESULT", "CANCELLED", "CEILINGS", "COMPILE_RESULT", "DEFAULT_PEAKS",
    "EMULATED_CASE_BYTES", "EMULATED_TARGETS", "EVENT_PAYLOADS", "EVENT_REASON_CHARS", "EVENT_TEXT_CHARS",
    "EVENT_TYPES", "FINAL_STATUSES", "FINISHED", "FLOPS_TYPES", "HEARTBEAT", "INTERPRETED_CASE_BYTES",
    "MAX_ID_CHARS", "MAX_SOURCE_BYTES", "MAX_TRITON_AUTOTUNE_CONFIGS", "MODES", "PROTOCOL_VERSION", "QUEUED",
    "RANKED_RESULT", "RESULT", "RUNNING",
    "STAGES", "STATUS", "SUCCESS_STATUSES", "TEST_RESULT", "AgentReady", "BenchmarkResultPayload",
    "CaseTiming", "CompileResultPayload", "ErrorReply", "Event", "EventsReply", "Floor", "Health", "HeartbeatPayload",
    "JobDescription", "JobLine", "JobRequest", "JobsReply", "Peaks", "RankedResultPayload", "ResourceLimits",
    "ResultPayload", "StatusPayload", "TestResultPayload", "cut_text", "event_problems", "floor", "flops_type_of",
    "geometric_floor", "json_safe", "measure_peaks",
]

PROTOCOL_VERSION = 1  # what GET /v1/health answers as "protocol"; a change that breaks a reader raises it
MAX_SOURCE_BYTES = 64 * 1024  # of a job's source, UTF-8
MAX_ID_CHARS = 64  # of a job's id
MODES = ("check", "benchmark", "compile", "leaderboard")


def measure_peaks(*, size_mib: int = 256, n: int = 2048, seconds: float = 1.0) -> Peaks:
    """This machine's copy bandwidth and fp32/fp64 compute, measured with NumPy (agent.peak_probe):
    what a host pool's speed of light is computed from. NumPy is loaded here, by the one command
    that measures, never by importing this module."""
    from agent.peak_probe import measure

    return measure(size_mib=size_mib, n=n, seconds=seconds)


# ---- jobs: the states a job passes through, the statuses of its stages and its verdict ------------
QUEUED, RUNNING, FINISHED, CANCELLED = "queued", "running", "finished", "cancelled"
ACTIVE_STATES = (QUEUED, RUNNING)
# What a STATUS event says the job is doing, in the order a job does it.
STAGES = ("COMPILING", "CHECKING", "BENCHMARKING", "RANKING")
# What a RESULT event's status may be.
FINAL_STATUSES = ("ACCEPTED", "CHECKED", "COMPILED", "WRONG_ANSWER", "COMPILE_ERROR", "RUNTIME_ERROR",
                  "TIME_LIMIT_EXCEEDED", "CANCELLED", "ERROR")
# Final statuses that mean "the submission did what the mode asked".
SUCCESS_STATUSES = ("ACCEPTED", "CHECKED", "COMPILED")


class JobRequest(TypedDict):
    """The body of POST /v1/jobs (agent.judging.judge.JobSpec.from_request checks it)."""
    id: str  # at most MAX_ID_CHARS; a known id returns that job, whatever the body says
    problem: dict[str, Any]  # a problem bundle (agent.problems: Problem.to_bundle())
    language: str  # cpp | hip | cuda | triton
    source: str  # at most MAX_SOURCE_BYTES
    mode: NotRequired[str]  # one of MODES; benchmark when absent
    seed: NotRequired[int | None]  # the test inputs' draw; random when absent
    limits: NotRequired[dict[str, float]]  # ResourceLimits' fields, clamped to CEILINGS
    cache_scope: NotRequired[str | None]  # compiled builds are shared within one scope only
    ranked_seed: NotRequired[int]  # mode leaderboard only: the secret draw of the ranked inputs


# ---- events: their names and what each one's payload holds ----------------------------------------
# The names are stored with every event in the platform's database and read by the CLI: never rename
# one (add a new name instead, and bump PROTOCOL_VERSION where an old reader would misread it).
STATUS = "STATUS"  # the job entered a stage
COMPILE_RESULT = "COMPILE_RESULT"  # the compile ended (compiled or not)
TEST_RESULT = "TEST_RESULT"  # one test case was checked
BENCHMARK_RESULT = "BENCHMARK_RESULT"  # one benchmark case was timed
RANKED_RESULT = "RANKED_RESULT"  # one ranked case was timed (mode leaderboard)
HEARTBEAT = "HEARTBEAT"  # the job is alive (every few seconds while it runs)
RESULT = "RESULT"  # the verdict: always the job's last event, exactly once
EVENT_TYPES = (STATUS, COMPILE_RESULT, TEST_RESULT, BENCHMARK_RESULT, RANKED_RESULT, HEARTBEAT, RESULT)


class StatusPayload(TypedDict):
    status: str  # one of STAGES


class CompileResultPayload(TypedDict):
    ok: bool
    output: str  # the compiler's own words (the tail, when cut)
    cached: bool  # the build came from the compile cache
    seconds: float
    report: NotRequired[dict[str, Any]]  # Triton: what the kernels use of the GPU, and the AMDGCN listing


class TestResultPayload(TypedDict):
    case: str
    index: int  # from 0
    total: int
    passed: bool
    message: str | None  # why the case failed, with how to reproduce it
    seconds: float
    seed: int  # the draw of the inputs


class CaseTiming(TypedDict):
    """What a timed case reports, benchmark and ranked alike (agent.judging.bench)."""
    case: str
    index: int
    total: int
    runs: int
    mean_ms: float
    median_ms: float
    ci95_ms: list[float]  # the mean's 95 % interval
    gflops: float | None
    gbps: float | None
    flush_bytes: int  # what was written between runs to evict the caches


class BenchmarkResultPayload(CaseTiming):
    """A public benchmark case: its inputs are the problem's, so its single runs may be told too."""
    std_ms: float
    min_ms: float
    max_ms: float
    rel_stderr: float


class RankedResultPayload(CaseTiming):
    """A ranked case: the inputs are secret, so no single run's figures (min, max, spread)."""
    reference_mean_ms: float | None  # the problem's own solution, timed in the same pairs; None without one
    reference_ci95_ms: NotRequired[list[float]]
    speedup: float | None


class HeartbeatPayload(TypedDict):
    elapsed_s: float
    status: str  # the job's latest status


class ResultPayload(TypedDict):
    status: str  # one of FINAL_STATUSES
    reason: str  # one sentence saying why
    score_ms: float | None  # benchmark and leaderboard: the geometric mean over the benchmark cases
    summary: dict[str, Any]  # device, language, mode, compile, tests, benchmarks, ranked... (docs/agent.md)


EVENT_PAYLOADS: dict[str, type] = {
    STATUS: StatusPayload, COMPILE_RESULT: CompileResultPayload, TEST_RESULT: TestResultPayload,
    BENCHMARK_RESULT: BenchmarkResultPayload, RANKED_RESULT: RankedResultPayload, HEARTBEAT: HeartbeatPayload,
    RESULT: ResultPayload,
}


class Event(TypedDict):
    seq: int  # 1..N within the job: a poller resumes with after=N
    type: str  # one of EVENT_TYPES
    payload: dict[str, Any]  # EVENT_PAYLOADS[type]'s keys
    at: str  # ISO 8601, UTC


def event_problems(event_type: str, payload: dict[str, Any]) -> list[str]:
    """What is wrong with an event against this protocol (empty: nothing): an unknown name, a
    payload key its type requires and lacks, or one it does not know."""
    shape = EVENT_PAYLOADS.get(event_type)
    if shape is None:
        return [f"{event_type!r} is not an event type of protocol v{PROTOCOL_VERSION}"]
    keys = set(payload)
    required = set(shape.__required_keys__)  # type: ignore[attr-defined]
    known = required | set(shape.__optional_keys__)  # type: ignore[attr-defined]
    return ([f"{event_type}: no {key!r}" for key in sorted(required - keys)]
            + [f"{event_type}: unknown {key!r}" for key in sorted(keys - known)])


# ---- the HTTP API (agent.server): what each endpoint answers ----------------------------------------
class JobDescription(TypedDict):
    """GET /v1/jobs/<id>, and POST /v1/jobs's and DELETE /v1/jobs/<id>'s answer."""
    id: str
    state: str  # QUEUED, RUNNING, FINISHED or CANCELLED
    status: str  # the latest STATUS, then the RESULT's status
    problem: str | None
    language: str | None
    mode: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    cancel_requested: bool
    last_seq: int
    result: ResultPayload | None


class JobsReply(TypedDict):
    """GET /v1/jobs: this agent's jobs, newest first."""
    jobs: list[JobDescription]


class EventsReply(TypedDict):
    """GET /v1/jobs/<id>/events?after=N&wait=S: the job and its events with seq > N."""
    job: JobDescription
    events: list[Event]


class Health(TypedDict):
    """GET /v1/health (`python -m agent health` prints the same without the job fields)."""
    protocol: int  # PROTOCOL_VERSION
    agent_version: str
    device: str  # host | hip | cuda
    arch: str | None
    toolchains: dict[str, str | None]  # language -> its compiler's version, None: not installed
    sandbox: str
    insecure: bool
    limits: dict[str, Any]
    compile_cache_bytes: int
    host: str
    uptime_s: float
    emulated: list[str]  # the languages checked here on an emulated device (or Triton's interpreter)
    emulator: dict[str, Any]
    triton: str | None  # Triton's version, None: not installed
    busy: NotRequired[bool]  # the server's own fields
    job: NotRequired[str | None]


class ErrorReply(TypedDict):
    """Every 4xx/5xx: a sentence and what it is about (`field` of a refused request, `job_id`...)."""
    message: str
    extra: dict[str, Any]


# ---- `python -m agent jobs`: one JSON object a line on stdout -----------------------------------------
class AgentReady(TypedDict):
    """The first line, once the agent can judge: what it is, and the target each language compiles for."""
    ready: Health
    compile_arch: dict[str, str | None]  # language -> the target a compile-only job uses here


class JobLine(TypedDict):
    """Every later line: one event of the job `job` (the ids of the requests read from stdin), or
    `error` instead, for a request that was refused (a JobRequest error names the field)."""
    job: str | None
    event: NotRequired[Event]
    error: NotRequired[str]


# ---- events: what one event may carry (json_safe) -------------------------------------------------
EVENT_REASON_CHARS = 2000
EVENT_TEXT_CHARS = 64 * 1024
EVENT_KEY_CHARS = 200
EVENT_LIST_ITEMS = 10_000
EVENT_DEPTH = 16


def json_safe(value: Any, key: str = "", depth: int = 0) -> Any:
    """A snapshot of an event payload that strict JSON can carry, and the one place that bounds
    what an event says: every string is cut (a reason to EVENT_REASON_CHARS, output and anything
    else to EVENT_TEXT_CHARS, keeping the tail of output), lists and nesting are bounded. Result
    lines, reasons and compiler output are the user's words: a 60 MiB line must not reach the
    events, the platform's database or SSE. NaN/inf become null, NumPy scalars plain numbers,
    anything else its (cut) str(). The judge may mutate its dicts later."""
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, str):
        return cut_text(value, key)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth >= EVENT_DEPTH:
        return "[… nested too deeply]"  # not str(value): that recurses as deep as the value
    if isinstance(value, dict):
        return {cut_text(str(k), "key"): json_safe(v, str(k), depth + 1)
                for k, v in itertools.islice(value.items(), EVENT_LIST_ITEMS)}
    if isinstance(value, list | tuple):
        return [json_safe(v, key, depth + 1) for v in value[:EVENT_LIST_ITEMS]]
    if hasattr(value, "item") and callable(value.item):  # NumPy scalar
        try:
            return json_safe(value.item(), key, depth + 1)
        except (TypeError, ValueError):
            pass
    return cut_text(str(value), key)


def cut_text(text: str, key: str = "") -> str:
    """`text` within its key's limit, marker included (so cutting twice changes nothing)."""
    limit = {"reason": EVENT_REASON_CHARS, "message": EVENT_REASON_CHARS, "error": EVENT_REASON_CHARS,
             "key": EVENT_KEY_CHARS}.get(key, EVENT_TEXT_CHARS)
    if len(text) <= limit:
        return text
    tail = key.endswith("output")  # what a program or compiler said last explains how it ended
    marker = "[… {} earlier characters cut] " if tail else " [… {} more characters cut]"
    keep = limit - len(marker.format(len(text)))
    cut = marker.format(len(text) - keep)
    return cut + text[-keep:] if tail else text[:keep] + cut

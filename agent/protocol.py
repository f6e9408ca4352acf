"""What the platform may use of the agent: protocol v1's constants (the source limit, modes, the
states a job ends in, the statuses that mean success), the resource limits a job may ask for and
their ceilings, the bounds on event text, the emulator's and Triton interpreter's case budgets, the speed-of-light
arithmetic, and the error that says this machine has no sandbox.

With agent.problems (problem bundles and their formulas) this is the only part of the agent the
platform imports (tests/test_dependencies.py), so the rest can be reorganised without it noticing.
It loads no NumPy: settings import it, and web and worker processes start without NumPy.

The judge itself, for the one platform command that runs it in its own process (`manage.py problem
check`), is here too but loaded only when first asked for (`judge`, `JobSpec`, `AgentConfig`,
`build_config`, `emulated_cases`, `emulator_runtime`).
"""

from __future__ import annotations

import importlib
import itertools
import math
from typing import TYPE_CHECKING, Any

from agent import PROTOCOL_VERSION
from agent.emulator.budget import EMULATED_CASE_BYTES
from agent.emulator.target import EMULATED_TARGETS
from agent.languages.triton.budget import INTERPRETED_CASE_BYTES, MAX_TRITON_AUTOTUNE_CONFIGS
from agent.problems.roofline import DEFAULT_PEAKS, FLOPS_TYPES, Floor, Peaks, floor, flops_type_of, geometric_floor
from agent.sandbox.core import SandboxUnavailable
from agent.sandbox.resources import CEILINGS, ResourceLimits

if TYPE_CHECKING:
    from agent.config import AgentConfig, build_config
    from agent.emulator.budget import emulated_cases
    from agent.emulator.toolchain import emulator_runtime
    from agent.judging.judge import JobSpec, judge

# The in-process judge's names and their modules: loaded on first use, never by importing this one.
_IN_PROCESS = {"AgentConfig": "agent.config", "build_config": "agent.config", "emulated_cases": "agent.emulator.budget",
               "emulator_runtime": "agent.emulator.toolchain", "JobSpec": "agent.judging.judge",
               "judge": "agent.judging.judge"}


def __getattr__(name: str) -> Any:
    if name in _IN_PROCESS:
        return getattr(importlib.import_module(_IN_PROCESS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "CANCELLED", "CEILINGS", "DEFAULT_PEAKS", "EMULATED_CASE_BYTES", "EMULATED_TARGETS", "INTERPRETED_CASE_BYTES",
    "EVENT_REASON_CHARS",
    "EVENT_TEXT_CHARS",
    "FINISHED", "FLOPS_TYPES", "MAX_ID_CHARS", "MAX_SOURCE_BYTES", "MAX_TRITON_AUTOTUNE_CONFIGS", "MODES",
    "PROTOCOL_VERSION", "SUCCESS_STATUSES",
    "Floor", "Peaks", "ResourceLimits", "SandboxUnavailable", "cut_text", "floor", "flops_type_of", "geometric_floor",
    "json_safe", "measure_peaks",
    "AgentConfig", "JobSpec", "build_config", "emulated_cases", "emulator_runtime", "judge",
]

MAX_SOURCE_BYTES = 64 * 1024  # of a job's source, UTF-8
MAX_ID_CHARS = 64  # of a job's id
MODES = ("check", "benchmark", "compile", "leaderboard")


def measure_peaks(*, size_mib: int = 256, n: int = 2048, seconds: float = 1.0) -> Peaks:
    """This machine's copy bandwidth and fp32/fp64 compute, measured with NumPy (agent.peak_probe):
    what a host pool's speed of light is computed from. NumPy is loaded here, by the one command
    that measures, never by importing this module."""
    from agent.peak_probe import measure

    return measure(size_mib=size_mib, n=n, seconds=seconds)


# ---- jobs: the states a job passes through, the statuses that mean success ------------------------
QUEUED, RUNNING, FINISHED, CANCELLED = "queued", "running", "finished", "cancelled"
ACTIVE_STATES = (QUEUED, RUNNING)
# Final statuses that mean "the submission did what the mode asked".
SUCCESS_STATUSES = ("ACCEPTED", "CHECKED", "COMPILED")

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

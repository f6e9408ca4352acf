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
from typing import TYPE_CHECKING, Any

from agent import PROTOCOL_VERSION
from agent.emulator.budget import EMULATED_CASE_BYTES
from agent.emulator.target import EMULATED_TARGETS
from agent.judging.jobs import (
    CANCELLED,
    EVENT_REASON_CHARS,
    EVENT_TEXT_CHARS,
    FINISHED,
    SUCCESS_STATUSES,
    cut_text,
    json_safe,
)
from agent.languages.triton.budget import INTERPRETED_CASE_BYTES
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
    "FINISHED", "FLOPS_TYPES", "MAX_ID_CHARS", "MAX_SOURCE_BYTES", "MODES", "PROTOCOL_VERSION", "SUCCESS_STATUSES",
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

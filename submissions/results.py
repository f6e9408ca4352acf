"""Turn a submission's stored events into what people read: compile output, per-case tables."""

from __future__ import annotations

from typing import Any

from agent.protocol import BENCHMARK_RESULT, COMPILE_RESULT, RANKED_RESULT, TEST_RESULT
from submissions.models import Submission

CASE_EVENTS = {TEST_RESULT: "tests", BENCHMARK_RESULT: "benchmarks", RANKED_RESULT: "ranked"}


def submission_results(*, submission: Submission) -> dict[str, Any]:
    """Results of the latest attempt: {"compile": {...} | None, "tests": [...], "benchmarks": [...],
    "ranked": [...]}."""
    results: dict[str, Any] = {"compile": None, "tests": [], "benchmarks": [], "ranked": []}
    events = submission.events.filter(
        attempt=submission.attempt, type__in=[COMPILE_RESULT, *CASE_EVENTS]).order_by("seq")
    for event in events.only("type", "payload"):
        if event.type == COMPILE_RESULT:
            results["compile"] = event.payload
        else:
            results[CASE_EVENTS[event.type]].append(event.payload)
    return results


def compile_report(*, results: dict[str, Any]) -> dict[str, Any] | None:
    """What the compiled kernels use of the GPU (a triton submission: per target and kernel VGPRs,
    AGPRs, SGPRs, spills, LDS, occupancy, MFMA count; sm_90's registers and shared memory), without
    its AMDGCN listing (amdgcn_listing); None where the compile reported none."""
    compiled = results.get("compile") or {}
    report = compiled.get("report") if isinstance(compiled, dict) else None
    if not isinstance(report, dict):
        return None
    return {key: value for key, value in report.items() if key != "amdgcn_listing"}


def amdgcn_listing(*, submission: Submission) -> str | None:
    """The AMDGCN listing its compile reported, whole (it travels in chunks); None without one."""
    event = submission.events.filter(attempt=submission.attempt, type=COMPILE_RESULT).order_by("-seq").first()
    report = (event.payload or {}).get("report") if event is not None else None
    chunks = report.get("amdgcn_listing") if isinstance(report, dict) else None
    if not isinstance(chunks, list) or not chunks:
        return None
    return "".join(chunk for chunk in chunks if isinstance(chunk, str))

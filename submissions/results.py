"""Turn a submission's stored events into what people read: compile output, per-case tables."""

from __future__ import annotations

from typing import Any

from submissions.models import Submission

CASE_EVENTS = {"TEST_RESULT": "tests", "BENCHMARK_RESULT": "benchmarks", "RANKED_RESULT": "ranked"}


def submission_results(*, submission: Submission) -> dict[str, Any]:
    """Results of the latest attempt: {"compile": {...} | None, "tests": [...], "benchmarks": [...],
    "ranked": [...]}."""
    results: dict[str, Any] = {"compile": None, "tests": [], "benchmarks": [], "ranked": []}
    events = submission.events.filter(
        attempt=submission.attempt, type__in=["COMPILE_RESULT", *CASE_EVENTS]).order_by("seq")
    for event in events.only("type", "payload"):
        if event.type == "COMPILE_RESULT":
            results["compile"] = event.payload
        else:
            results[CASE_EVENTS[event.type]].append(event.payload)
    return results

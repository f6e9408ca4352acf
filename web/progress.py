"""What the submission page shows, derived from the row and its ordered events: the stages with
their state, the tests and benchmark cases so far, the first mismatch, the compiler output.

Kept out of the template so the live fragment and the full page agree, and so tests can check it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.protocol import BENCHMARK_RESULT, COMPILE_RESULT, RANKED_RESULT, STATUS, TEST_RESULT
from submissions.models import FAILED_STATUSES, Mode, Submission, SubmissionEvent

STAGE_LABELS = {"IN_QUEUE": "Queued", "PROVISIONING": "Starting a VM", "COMPILING": "Compiling",
                "CHECKING": "Tests", "BENCHMARKING": "Benchmark", "RANKING": "Ranked pass", "RESULT": "Result"}


@dataclass
class Stage:
    key: str
    label: str
    state: str = "pending"  # pending | current | done | failed | skipped
    detail: str = ""


@dataclass
class Progress:
    stages: list[Stage]
    percent: int
    tests: list[dict[str, Any]] = field(default_factory=list)
    tests_total: int = 0
    benchmarks: list[dict[str, Any]] = field(default_factory=list)
    benchmarks_total: int = 0
    ranked: list[dict[str, Any]] = field(default_factory=list)  # RANKED_RESULT payloads (mode leaderboard)
    ranked_total: int = 0
    compile: dict[str, Any] | None = None
    mismatch: dict[str, Any] | None = None
    vm_start: str = ""
    provisioning_since: Any = None
    output: str = ""
    show_tests: bool = False  # the tests stage has begun (the list may still be empty)

    @property
    def tests_said(self) -> str:
        return tests_said(self.tests, self.tests_total or len(self.tests))


def _device_class(submission: Submission) -> str:
    return "host" if submission.pool.device == "host" else "gpu"


def expected_cases(submission: Submission) -> tuple[int, int, int]:
    """How many tests / benchmark cases / ranked cases this submission will run on its pool's device class."""
    definition = (submission.problem_version.bundle or {}).get("definition") or {}
    device_class = _device_class(submission)

    def count(kind: str) -> int:
        return sum(1 for case in definition.get(kind) or [] if device_class in (case.get("devices") or []))

    return count("tests"), count("benchmarks"), count("ranked")


def submission_progress(*, submission: Submission, events: list[SubmissionEvent]) -> Progress:
    mode = submission.mode
    keys = ["IN_QUEUE", "PROVISIONING", "COMPILING"]
    benchmarked = mode in (Mode.BENCHMARK, Mode.LEADERBOARD)
    if mode in (Mode.CHECK, Mode.BENCHMARK, Mode.LEADERBOARD):
        keys.append("CHECKING")
    if benchmarked:
        keys.append("BENCHMARKING")
    if mode == Mode.LEADERBOARD:
        keys.append("RANKING")
    keys.append("RESULT")
    stages = {k: Stage(k, STAGE_LABELS[k]) for k in keys}
    tests_total, bench_total, ranked_total = expected_cases(submission)
    progress = Progress(stages=list(stages.values()), percent=0, tests_total=tests_total,
                        benchmarks_total=bench_total if benchmarked else 0,
                        ranked_total=ranked_total if mode == Mode.LEADERBOARD else 0)

    # Only the latest attempt's results count (a VM lost mid-job re-runs everything).
    reached: list[str] = []
    for event in events:
        payload = event.payload or {}
        if event.type == STATUS and payload.get("status") in stages:
            if payload["status"] == "IN_QUEUE":
                reached, progress.tests, progress.benchmarks, progress.compile = [], [], [], None
                progress.mismatch, progress.ranked = None, []
            reached.append(payload["status"])
            if payload["status"] == "PROVISIONING":
                progress.provisioning_since = event.at
        elif event.type == "VM":
            progress.vm_start = payload.get("vm_start", "")
        elif event.type == COMPILE_RESULT:
            progress.compile = payload
        elif event.type == TEST_RESULT:
            progress.tests.append(payload)
            if not payload.get("passed") and progress.mismatch is None:
                progress.mismatch = payload
            progress.tests_total = max(progress.tests_total, int(payload.get("total") or 0))
        elif event.type == BENCHMARK_RESULT:
            progress.benchmarks.append(payload)
            progress.benchmarks_total = max(progress.benchmarks_total, int(payload.get("total") or 0))
        elif event.type == RANKED_RESULT:
            progress.ranked.append(payload)
            progress.ranked_total = max(progress.ranked_total, int(payload.get("total") or 0))
    progress.vm_start = progress.vm_start or submission.vm_start
    summary = submission.summary or {}
    progress.output = str(summary.get("output") or "")
    if progress.compile is None and summary.get("compile_output"):
        progress.compile = {"ok": False, "output": summary["compile_output"]}
    _mark_stages(submission, stages, reached, progress)
    return progress


def tests_said(tests: list[dict[str, Any]], total: int) -> str:
    """The tests so far in words that cannot be misread: "3 of 4 passed", "test 1 of 4 failed"
    (a bare "1/4" beside a failure read as "1 passed")."""
    passed = sum(1 for t in tests if t.get("passed"))
    failed = next((t for t in tests if not t.get("passed")), None)
    if failed is None:
        return f"{passed} of {total} passed"
    return f"test {int(failed.get('index') or 0) + 1} of {total} failed" + (f", {passed} passed" if passed else "")


def _mark_stages(submission: Submission, stages: dict[str, Stage], reached: list[str], progress: Progress) -> None:
    current = submission.status
    terminal = submission.is_terminal
    order = list(stages)
    # The furthest stage we know of: from the events, or the row's status when events lag behind.
    furthest = max((order.index(s) for s in reached if s in stages), default=0)
    if current in stages:
        furthest = max(furthest, order.index(current))
    if terminal:
        for key in order[: furthest + 1]:
            stages[key].state = "done"
        failed = current in FAILED_STATUSES
        if failed and furthest > 0:
            stages[order[furthest]].state = "failed"
        for key in order[furthest + 1:-1]:
            stages[key].state = "skipped"
        stages["RESULT"].state = "failed" if failed else "done"
        stages["RESULT"].detail = current.replace("_", " ").lower()
    else:
        for key in order[:furthest]:
            stages[key].state = "done"
        stages[order[furthest]].state = "current"
    past_provisioning = furthest > order.index("PROVISIONING")
    if "PROVISIONING" not in reached and past_provisioning:
        # A warm VM was reused (or it never got that far): nothing to start.
        stages["PROVISIONING"].state = "skipped"
        if progress.vm_start == "WARM_REUSE":
            stages["PROVISIONING"].detail = "warm VM reused"
    elif progress.vm_start == "COLD_START":
        stages["PROVISIONING"].detail = "cold start"
    if "CHECKING" in stages and progress.tests_total:
        stages["CHECKING"].detail = tests_said(progress.tests, progress.tests_total)
    if "BENCHMARKING" in stages and progress.benchmarks_total:
        stages["BENCHMARKING"].detail = f"{len(progress.benchmarks)} of {progress.benchmarks_total} cases"
    if "RANKING" in stages and progress.ranked_total:
        stages["RANKING"].detail = f"{len(progress.ranked)} of {progress.ranked_total} cases"
    progress.percent = 100 if terminal else _percent(order, stages, progress)
    progress.show_tests = bool(progress.tests) or ("CHECKING" in stages and stages["CHECKING"].state == "current")


def _percent(order: list[str], stages: dict[str, Stage], progress: Progress) -> int:
    """A monotone estimate: each stage gets a share; tests and cases fill theirs one by one."""
    weights = {"IN_QUEUE": 5, "PROVISIONING": 10, "COMPILING": 20, "CHECKING": 30, "BENCHMARKING": 35, "RANKING": 35}
    active = [k for k in order if k != "RESULT"]
    total = sum(weights[k] for k in active)
    done = 0.0
    for key in active:
        stage = stages[key]
        if stage.state in ("done", "skipped"):
            done += weights[key]
        elif stage.state == "current":
            if key == "CHECKING" and progress.tests_total:
                done += weights[key] * len(progress.tests) / progress.tests_total
            elif key == "BENCHMARKING" and progress.benchmarks_total:
                done += weights[key] * len(progress.benchmarks) / progress.benchmarks_total
            elif key == "RANKING" and progress.ranked_total:
                done += weights[key] * len(progress.ranked) / progress.ranked_total
            break
    return max(2, min(99, round(100 * done / total)))

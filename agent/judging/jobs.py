"""Jobs on one agent: one at a time, idempotent on id, events kept in order for resumable polling.

The HTTP server and the terminal `run` command both drive judging through a JobManager, so the
rules of protocol v1 (one job at a time, a repeated id returns the same job, events numbered
1..N so a poller that died can resume with `after=N`) live here and nowhere else.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agent.protocol import (
    ACTIVE_STATES,
    CANCELLED,
    FINISHED,
    HEARTBEAT,
    QUEUED,
    RESULT,
    RUNNING,
    STATUS,
    HeartbeatPayload,
    ResultPayload,
    json_safe,
)

if TYPE_CHECKING:  # the judging core is imported lazily: this module must load without it
    from agent.config import AgentConfig

Emit = Callable[[str, dict], None]
JudgeFn = Callable[[Any, "AgentConfig", Emit, threading.Event], None]
SpecParser = Callable[[Any], Any]


HEARTBEAT_SECONDS = 5.0
# A judge that ignores its own limits is cancelled after this long, so the agent cannot stay busy forever.
MAX_JOB_SECONDS = 2 * 3600.0
CANCEL_WAIT_SECONDS = 5.0
MAX_LONG_POLL_SECONDS = 30.0
KEEP_FINISHED_JOBS = 50


class AgentBusy(Exception):
    def __init__(self, job_id: str) -> None:
        super().__init__(f"busy with job {job_id}")
        self.job_id = job_id


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Job:
    id: str
    spec: Any
    state: str = QUEUED
    status: str = "IN_QUEUE"  # the latest STATUS, then the final RESULT status
    result: dict | None = None
    created_at: str = field(default_factory=utc_now_iso)
    started_at: str | None = None
    finished_at: str | None = None
    events: list[dict] = field(default_factory=list)
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    started_monotonic: float = 0.0

    @property
    def last_seq(self) -> int:
        return len(self.events)

    def describe(self) -> dict:
        spec = self.spec
        problem = getattr(spec, "problem", None)
        return {
            "id": self.id,
            "state": self.state,
            "status": self.status,
            "problem": getattr(problem, "slug", None),
            "language": getattr(spec, "language", None),
            "mode": getattr(spec, "mode", None),
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "cancel_requested": self.cancel.is_set(),
            "last_seq": self.last_seq,
            "result": self.result,
        }


def _real_judge(spec: Any, config: AgentConfig, emit: Emit, cancel: threading.Event) -> None:
    from agent.judging.judge import judge

    judge(spec, config, emit, cancel)


def _real_spec_parser(body: Any, config: AgentConfig | None = None) -> Any:
    from agent.judging.judge import JobSpec

    return JobSpec.from_request(body, config)


class JobManager:
    """Owns every job of this agent process. Thread-safe: the HTTP server calls it from many threads."""

    def __init__(
        self,
        config: AgentConfig,
        *,
        judge_fn: JudgeFn | None = None,
        parse_spec: SpecParser | None = None,
        keep_finished: int = KEEP_FINISHED_JOBS,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
        max_job_seconds: float = MAX_JOB_SECONDS,
        cancel_wait_seconds: float = CANCEL_WAIT_SECONDS,
    ) -> None:
        self.config = config
        self._judge = judge_fn or _real_judge
        self._parse_spec = parse_spec or (lambda body: _real_spec_parser(body, config))
        self._keep_finished = max(keep_finished, 1)  # the job that just ended stays readable
        self._heartbeat_seconds = heartbeat_seconds
        self._max_job_seconds = max_job_seconds
        self._cancel_wait_seconds = cancel_wait_seconds
        self._jobs: dict[str, Job] = {}  # insertion order = submission order, used for eviction
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # notified on every new event

    # ---- queries -----------------------------------------------------------------------------
    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def describe(self, job_id: str) -> dict | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return job.describe() if job else None

    def active_job_id(self) -> str | None:
        with self._lock:
            active = self._active_locked()
            return active.id if active else None

    def list_jobs(self) -> list[dict]:
        with self._lock:
            return [job.describe() for job in reversed(self._jobs.values())]

    def events(self, job_id: str, after: int = 0,
               wait_seconds: float = 0.0) -> tuple[dict, list[dict]] | None:
        """The job's state and its events with seq > after; with wait_seconds, a long poll that
        returns as soon as there is something new or the job has ended."""
        deadline = time.monotonic() + min(max(wait_seconds, 0.0), MAX_LONG_POLL_SECONDS)
        with self._changed:
            while True:
                job = self._jobs.get(job_id)
                if job is None:
                    return None
                remaining = deadline - time.monotonic()
                if job.last_seq > after or job.done.is_set() or remaining <= 0:
                    return job.describe(), [dict(e) for e in job.events[max(after, 0):]]
                self._changed.wait(remaining)

    # ---- commands ----------------------------------------------------------------------------
    def submit(self, body: Any) -> tuple[Job, bool]:
        """Start a job from a POST /v1/jobs body. Returns (job, created). A known id returns the
        existing job whatever the body says. Raises AgentBusy, or the spec parser's error."""
        if isinstance(body, dict) and isinstance(body.get("id"), str):
            existing = self.get(body["id"])
            if existing is not None:
                return existing, False
        spec = self._parse_spec(body)  # may be slow (bundle validation): done outside the lock
        with self._lock:
            existing = self._jobs.get(spec.id)
            if existing is not None:  # the same id raced in meanwhile
                return existing, False
            active = self._active_locked()
            if active is not None:
                raise AgentBusy(active.id)
            job = Job(id=spec.id, spec=spec)
            self._jobs[job.id] = job
        threading.Thread(target=self._run, args=(job,), name=f"job-{job.id}", daemon=True).start()
        return job, True

    def cancel(self, job_id: str, wait_seconds: float | None = None) -> dict | None:
        """Ask the judge to stop (it kills the sandbox) and wait briefly for the final RESULT."""
        job = self.get(job_id)
        if job is None:
            return None
        if not job.done.is_set():
            job.cancel.set()
            job.done.wait(self._cancel_wait_seconds if wait_seconds is None else wait_seconds)
        return self.describe(job_id)

    def shutdown(self, wait_seconds: float | None = None) -> None:
        """Cancel whatever runs, so no sandboxed process outlives the agent."""
        active_id = self.active_job_id()
        if active_id:
            self.cancel(active_id, wait_seconds)

    # ---- the job thread ----------------------------------------------------------------------
    def _run(self, job: Job) -> None:
        with self._lock:
            job.state = RUNNING
            job.started_at = utc_now_iso()
            job.started_monotonic = time.monotonic()
        threading.Thread(target=self._heartbeat, args=(job,), name=f"heartbeat-{job.id}", daemon=True).start()

        def emit(event_type: str, payload: dict) -> None:
            self._append(job, event_type, payload)

        try:
            self._judge(job.spec, self.config, emit, job.cancel)
        except Exception as exc:  # the judge reports user errors itself; this is an agent bug
            print(f"job {job.id}: judge crashed\n{traceback.format_exc()}", file=sys.stderr, flush=True)
            reason = f"The agent failed while judging ({type(exc).__name__}: {exc})."
            self._append(job, RESULT, _final("ERROR", reason))
        if job.result is None:
            if job.cancel.is_set():
                self._append(job, RESULT, _final("CANCELLED", "The job was cancelled."))
            else:
                self._append(job, RESULT, _final("ERROR", "The judge ended without a result."))

    def _heartbeat(self, job: Job) -> None:
        # Bounded by the job: ends when it is done, and cancels it after max_job_seconds.
        while not job.done.wait(self._heartbeat_seconds):
            elapsed = time.monotonic() - job.started_monotonic
            if elapsed > self._max_job_seconds and not job.cancel.is_set():
                print(f"job {job.id}: over {self._max_job_seconds:.0f} s, cancelling", file=sys.stderr,
                      flush=True)
                job.cancel.set()
            beat: HeartbeatPayload = {"elapsed_s": round(elapsed, 1), "status": job.status}
            self._append(job, HEARTBEAT, dict(beat))
            if elapsed > self._max_job_seconds + 60:  # the judge ignores cancel: stop beating
                return

    def _append(self, job: Job, event_type: str, payload: dict) -> None:
        payload = json_safe(payload)
        with self._changed:
            if job.done.is_set():
                # Nothing follows the final RESULT; a late event is a judge bug, not the client's.
                print(f"job {job.id}: dropped {event_type} after RESULT", file=sys.stderr, flush=True)
                return
            job.events.append({"seq": job.last_seq + 1, "type": event_type, "payload": payload,
                               "at": utc_now_iso()})
            if event_type == STATUS and isinstance(payload.get("status"), str):
                job.status = payload["status"]
            elif event_type == RESULT:
                job.result = payload
                job.status = str(payload.get("status", "ERROR"))
                job.state = CANCELLED if job.status == "CANCELLED" else FINISHED
                job.finished_at = utc_now_iso()
                job.done.set()
                self._evict_locked()
            self._changed.notify_all()

    # ---- bookkeeping -------------------------------------------------------------------------
    def _active_locked(self) -> Job | None:
        return next((j for j in self._jobs.values() if j.state in ACTIVE_STATES), None)

    def _evict_locked(self) -> None:
        finished = [j.id for j in self._jobs.values() if j.state not in ACTIVE_STATES]
        for job_id in finished[: max(len(finished) - self._keep_finished, 0)]:
            del self._jobs[job_id]


def _final(status: str, reason: str) -> dict:
    result: ResultPayload = {"status": status, "reason": reason, "score_ms": None, "summary": {}}
    return dict(result)

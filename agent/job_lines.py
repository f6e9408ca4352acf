"""`python -m agent jobs`: judge the job requests read from stdin, one JSON object a line, and print
what happens as JSON lines on stdout, in protocol v1's shapes (agent.protocol):

- first, once this agent can judge, one AgentReady line: its health (what GET /v1/health answers)
  and the target each language compiles for here;
- then, for each request in turn, a JobLine per event of its job, the RESULT last; or one JobLine
  with `error` for a request that was refused (not JSON, or a field the job spec refuses).

It is the HTTP server's job machinery (agent.judging.jobs.JobManager) without the network: a
process on this machine that judges many jobs (`manage.py problem check`) loads the judge once and
keeps it out of its own memory. It ends at the end of its input; a SIGTERM cancels the running job
(and its sandbox) first.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

from agent.judging.jobs import AgentBusy, JobManager
from agent.protocol import ACTIVE_STATES, AgentReady, Event, JobLine

LANGUAGES = ("cpp", "hip", "cuda", "triton")
POLL_SECONDS = 1.0
JOB_MAX_SECONDS = 3 * 3600.0  # far above any job's limits (the manager cancels at 2 h): only a stuck judge


def serve_lines(config: Any, lines: IO[str], out: IO[str]) -> None:
    """The command's loop, on an AgentConfig (agent.config.build_config)."""
    from agent.config import health_info

    manager = JobManager(config)

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    ready: AgentReady = {"ready": health_info(config),  # type: ignore[typeddict-item]
                         "compile_arch": {language: config.arch_for(language) for language in LANGUAGES}}
    _write(out, ready)
    try:
        for line in lines:
            if line.strip():
                _judge_line(manager, line, out)
    except KeyboardInterrupt:
        pass
    finally:
        manager.shutdown()  # no sandboxed process outlives the command


def _judge_line(manager: JobManager, line: str, out: IO[str]) -> None:
    try:
        request = json.loads(line)
    except ValueError as exc:
        _write(out, JobLine(job=None, error=f"not a JSON object: {exc}"))
        return
    job_id = request.get("id") if isinstance(request, dict) and isinstance(request.get("id"), str) else None
    try:
        job, _ = manager.submit(request)
    except ValueError as exc:  # JobSpecError / ProblemError: the message names the field
        _write(out, JobLine(job=job_id, error=str(exc)))
        return
    except AgentBusy as exc:  # an earlier job outlived its time and its cancel: one line, not a traceback
        _write(out, JobLine(job=job_id, error=f"the agent is still busy with job {exc}"))
        return
    for event in _events(manager, job.id):
        _write(out, JobLine(job=job.id, event=event))


def _events(manager: JobManager, job_id: str) -> Iterator[Event]:
    """The job's events as they come, until its last one."""
    seen = 0
    deadline = time.monotonic() + JOB_MAX_SECONDS
    while time.monotonic() < deadline:
        found = manager.events(job_id, after=seen, wait_seconds=POLL_SECONDS)
        if found is None:  # evicted: cannot happen while it is the newest job
            return
        state, new = found
        yield from new  # type: ignore[misc]
        seen += len(new)
        if state["state"] not in ACTIVE_STATES and state["last_seq"] == seen:
            return
    manager.cancel(job_id)


def _write(out: IO[str], line: Any) -> None:
    out.write(json.dumps(line) + "\n")
    out.flush()


def main_jobs(config: Any) -> int:
    serve_lines(config, sys.stdin, sys.stdout)
    return 0

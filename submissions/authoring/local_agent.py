"""An agent in its own process on this machine, for the platform commands that judge here
(`manage.py problem check`): `python -m agent jobs` (agent.job_lines), spoken to in protocol v1's
JSON lines (agent.protocol: JobRequest in, AgentReady then JobLine out).

The judge stays in the agent's process: this one imports only the agent's protocol, and a judge
that crashes or hangs ends that process, not the command.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from agent import protocol
from agent.protocol import RESULT, AgentReady, Health, JobRequest, ResultPayload

AGENT_ROOT = Path(protocol.__file__).resolve().parents[1]  # the folder that holds the agent package
# The agent checks its sandbox (and may build the emulator's runtime) before its first line.
READY_SECONDS = 600.0
# A running job says something every few seconds (its HEARTBEAT); this long a silence is a stuck agent.
SILENCE_SECONDS = 120.0
STDERR_LINES = 40  # of the agent's own log, kept to explain why it stopped
CLOSE_SECONDS = 30.0


class AgentUnavailable(Exception):
    """The agent did not start here (no sandbox, say), stopped, or stopped speaking protocol v1."""


class LocalAgent:
    """`with LocalAgent(workdir) as agent: agent.judge(request)`: one process, many jobs in turn."""

    def __init__(self, workdir: Path, *, device: str = "auto", env: Mapping[str, str] | None = None) -> None:
        command = [sys.executable, "-m", "agent", "jobs", "--workdir", str(Path(workdir).resolve()), "--device", device]
        self._process = subprocess.Popen(command, cwd=AGENT_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._log: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        assert self._process.stdout is not None and self._process.stderr is not None
        threading.Thread(target=self._read, args=(self._process.stdout, self._lines.put), daemon=True).start()
        self._log_reader = threading.Thread(target=self._read, args=(self._process.stderr, self._log.append),
                                            daemon=True)
        self._log_reader.start()
        try:
            ready = self._next(READY_SECONDS)
            if "ready" not in ready or "compile_arch" not in ready:
                raise AgentUnavailable(f"the agent's first line is not protocol v1's AgentReady: {sorted(ready)}")
        except AgentUnavailable:
            self.close()
            raise
        self.ready: AgentReady = ready  # type: ignore[assignment]

    @property
    def health(self) -> Health:
        return self.ready["ready"]

    def judge(self, request: JobRequest) -> tuple[ResultPayload, list[str]]:
        """One job: (its RESULT's payload, the types of all its events in order). A request the agent
        refuses is an ERROR result naming why."""
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
        except OSError as exc:
            raise AgentUnavailable(f"the agent stopped reading jobs ({exc.strerror}){self._said()}") from None
        kinds: list[str] = []
        while True:
            line = self._next(SILENCE_SECONDS)
            if line.get("job") != request["id"]:
                raise AgentUnavailable(f"the agent answered for job {line.get('job')!r}, not {request['id']!r}")
            if "error" in line:
                return {"status": "ERROR", "reason": f"the agent refused the job: {line['error']}", "score_ms": None,
                        "summary": {}}, kinds
            event = line.get("event")
            if not isinstance(event, dict) or not isinstance(event.get("payload"), dict):
                raise AgentUnavailable(f"a line without an event or an error: {sorted(line)}")
            kinds.append(str(event.get("type")))
            if event.get("type") == RESULT:
                return _result(event["payload"]), kinds

    def close(self) -> None:
        """End of the input: the agent ends after its job; one that does not is killed."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            try:
                self._process.stdin.close()
            except OSError:
                pass
        try:
            self._process.wait(CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self._stop()

    def _stop(self) -> None:
        """SIGTERM first: the agent's handler cancels its job and the sandbox with it; then SIGKILL."""
        self._process.terminate()
        try:
            self._process.wait(CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> LocalAgent:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ---- reading -------------------------------------------------------------------------------
    @staticmethod
    def _read(stream: IO[str], put: Any) -> None:
        for line in stream:
            put(line.rstrip("\n"))
        put(None)  # the end: on stdout, the agent stopped

    def _next(self, seconds: float) -> dict[str, Any]:
        """The agent's next line, as a JSON object."""
        while True:
            try:
                text = self._lines.get(timeout=seconds)
            except queue.Empty:
                raise AgentUnavailable(f"the agent said nothing for {seconds:.0f} s{self._said()}") from None
            if text is None:
                try:
                    self._process.wait(CLOSE_SECONDS)
                except subprocess.TimeoutExpired:  # its output closed but it lives on
                    self._stop()
                self._log_reader.join(CLOSE_SECONDS)  # its last words explain why
                raise AgentUnavailable(f"the agent stopped (exit status {self._process.returncode}){self._said()}")
            if text.strip():
                break
        try:
            line = json.loads(text)
        except ValueError:
            line = None
        if not isinstance(line, dict):
            raise AgentUnavailable(f"the agent printed a line that is not a JSON object: {text[:200]!r}")
        return line

    def _said(self) -> str:
        said = " | ".join(line for line in self._log if line and line.strip())
        return f": {said}" if said else ""


def _result(payload: dict[str, Any]) -> ResultPayload:
    missing = sorted(set(ResultPayload.__required_keys__) - set(payload))
    if missing or not isinstance(payload.get("status"), str):
        raise AgentUnavailable(f"a RESULT without {', '.join(missing) or 'a status'}")
    return payload  # type: ignore[return-value]

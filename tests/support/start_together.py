"""Processes that race from one start: each says it is ready once set up and waits for a line on its
stdin; the test releases them all together when the last is ready (instead of a start time guessed in
advance, which a slow start-up on a busy machine misses)."""

from __future__ import annotations

import select
import subprocess
import time
from typing import Any

READY = "ready"  # the child's side, once set up: print("ready", flush=True); sys.stdin.readline()


def start_together(commands: list[list[str]], ready_within_s: float = 120, **popen: Any) -> list[subprocess.Popen]:
    procs = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, **popen) for command in commands]
    deadline = time.monotonic() + ready_within_s
    for proc in procs:
        assert proc.stdout is not None
        answered, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        line = proc.stdout.readline() if answered else ""
        if line.strip() != READY:
            for other in procs:
                other.kill()
            _, err = proc.communicate(timeout=10)
            raise AssertionError(f"a racer was not ready within {ready_within_s:g} s: {line!r}\n{err}")
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    return procs

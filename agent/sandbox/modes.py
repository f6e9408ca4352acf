"""Run untrusted programs (the compiler on user source, the user's kernel) in a sandbox.

Modes:
- bwrap (agent.sandbox.bwrap): bubblewrap with every namespace unshared, no nested user namespaces, a
  seccomp filter, a read-only view of only the system and Python directories the child needs, a
  private /tmp of a fixed size, the job's box at /box, all capabilities dropped, rlimits, a wall
  clock; everything it starts is killed at the end.
- docker (agent.sandbox.docker): where an engine answers, a named container with no network, a
  read-only root, sized tmpfs, cap_drop ALL, the limits as the container's own; killed by name.
  The descriptors the judge's child needs reach it over a socket (agent.sandbox.fd_handoff).
- none: no isolation at all. Only with --insecure-no-sandbox, and /v1/health says so.

Memory and thread caps on the whole sandbox come from a cgroup of its own where the agent may make
one (agent.sandbox.cgroups), else from rlimits. The child never sees the agent token, the platform's
files, another job's files or the parent's environment (--clearenv).
"""

from __future__ import annotations

import os
import shutil

from agent.sandbox.bwrap import BwrapSandbox, bwrap_works
from agent.sandbox.core import AGENT_ROOT, BOX, BoxLayout, Sandbox, SandboxUnavailable
from agent.sandbox.docker import DOCKER_IMAGE, DockerSandbox, docker_run_args, docker_works
from agent.sandbox.process import Outcome, SandboxedProcess

__all__ = ["AGENT_ROOT", "BOX", "DOCKER_IMAGE", "BoxLayout", "BwrapSandbox", "DockerSandbox", "Outcome",
           "Sandbox", "SandboxUnavailable", "SandboxedProcess", "detect_sandbox", "docker_run_args"]


def detect_sandbox(*, allow_insecure: bool = False, preferred: str | None = None) -> Sandbox:
    """The best sandbox this machine offers; HIPJUDGE_SANDBOX=bwrap|docker|none forces a choice
    (`none` pretends neither exists, which is how tests exercise the refusal)."""
    choice = (preferred or os.environ.get("HIPJUDGE_SANDBOX", "auto")).lower()
    if choice in ("auto", "bwrap") and shutil.which("bwrap") and bwrap_works():
        return BwrapSandbox()
    if choice in ("auto", "docker") and shutil.which("docker") and docker_works():
        return DockerSandbox()
    if allow_insecure:
        return Sandbox()
    raise SandboxUnavailable(
        "no sandbox available: install bubblewrap (apt-get install bubblewrap) or make a Docker engine "
        f"reachable with the sandbox image {DOCKER_IMAGE} (docker/sandbox.Dockerfile); to run user code "
        "without isolation anyway (trusted code only) pass --insecure-no-sandbox"
    )

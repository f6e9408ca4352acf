"""What this agent is: its device, GPU architecture, sandbox and working directory."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent import __version__
from agent.judging.compile_cache import DEFAULT_MAX_BYTES, remove_legacy_entries
from agent.judging.compiler import newest_hip_arch, toolchain_versions
from agent.protocol import PROTOCOL_VERSION
from agent.sandbox.modes import Sandbox, detect_sandbox

DEVICES = ("host", "hip", "cuda")
# A folder for the agent's own builds (the emulator's runtime, the eviction helper), shared by the agents
# of one machine: they are compiled from the agent's code, never a user's, and keyed by toolchain and
# source, so one build serves every agent. The local pool's agents share one (a local VM then starts
# without compiling the emulator again); unset, they go in the workdir's cache.
BUILD_DIR_ENV = "HIPJUDGE_AGENT_BUILD_DIR"
# What `hipcc --offload-arch` / `nvcc -arch` get when the GPU cannot tell us (MI300X, H100).
DEFAULT_ARCH = {"hip": "gfx942", "cuda": "sm_90"}


@dataclass
class AgentConfig:
    workdir: Path
    device: str
    sandbox: Sandbox
    arch: str | None
    started: float = field(default_factory=time.monotonic)
    cache_max_bytes: int = DEFAULT_MAX_BYTES  # the compile cache, least recently used out first
    shared_build_dir: Path | None = None  # BUILD_DIR_ENV's folder, if set

    @property
    def jobs_dir(self) -> Path:
        return self.workdir / "jobs"

    @property
    def cache_dir(self) -> Path:
        return self.workdir / "cache"

    @property
    def build_dir(self) -> Path:
        """Where the agent's own builds go (users' builds stay in cache_dir, scoped per user)."""
        return self.shared_build_dir or self.cache_dir

    def arch_for(self, language: str) -> str | None:
        """The target to compile a language for: this GPU's, or for a compile-only check elsewhere
        the newest target the local toolchain knows."""
        if language == "hip":
            return self.arch if self.device == "hip" else (newest_hip_arch(self.build_dir) or DEFAULT_ARCH["hip"])
        if language == "cuda":
            return self.arch if self.device == "cuda" else "sm_80"
        return None


def detect_device() -> str:
    if Path("/dev/kfd").exists() and _has_library("libamdhip64.so", "/opt/rocm/lib/libamdhip64.so"):
        return "hip"
    if Path("/dev/nvidia0").exists() and _has_library("libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                                      "/usr/local/cuda/lib64/libcudart.so"):
        return "cuda"
    return "host"


def detect_arch(device: str) -> str | None:
    if device == "hip":
        for command in (["amdgpu-arch"], ["rocm_agent_enumerator"]):
            out = _run(command)
            archs = [w for w in out.split() if w.startswith("gfx") and w != "gfx000"]
            if archs:
                return archs[0]
        return DEFAULT_ARCH["hip"]
    if device == "cuda":
        out = _run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]).strip()
        if out:
            return "sm_" + out.splitlines()[0].strip().replace(".", "")
        return DEFAULT_ARCH["cuda"]
    return None


def build_config(*, workdir: Path, device: str = "auto", arch: str | None = None,
                 allow_insecure: bool = False) -> AgentConfig:
    """Raises agent.sandbox.modes.SandboxUnavailable when no sandbox works and insecure mode is off."""
    if device not in (*DEVICES, "auto"):
        raise ValueError(f"device must be one of auto, {', '.join(DEVICES)}")
    sandbox = detect_sandbox(allow_insecure=allow_insecure)
    device = detect_device() if device == "auto" else device
    workdir = Path(workdir).resolve()
    (workdir / "jobs").mkdir(parents=True, exist_ok=True)
    (workdir / "cache").mkdir(parents=True, exist_ok=True)
    sandbox.hide(workdir)  # other jobs' boxes and the cache, wherever a bound tree holds them
    remove_legacy_entries(workdir / "cache")
    shared = os.environ.get(BUILD_DIR_ENV)
    shared_build_dir = Path(shared).resolve() if shared else None
    if shared_build_dir is not None:
        shared_build_dir.mkdir(parents=True, exist_ok=True)
        sandbox.hide(shared_build_dir)  # our own code only, but no child has business there
    return AgentConfig(workdir=workdir, device=device, sandbox=sandbox, arch=arch or detect_arch(device),
                       shared_build_dir=shared_build_dir)


def health_info(config: AgentConfig) -> dict[str, Any]:
    """What /v1/health reports (agent.protocol.Health). Builds the emulator's runtime on first use (a
    few seconds, once per g++ and emulator version): `emulated` lists only languages it can really check."""
    from agent.emulator.toolchain import health_fields

    return {
        "agent_version": __version__,
        "protocol": PROTOCOL_VERSION,
        "device": config.device,
        "arch": config.arch,
        "toolchains": toolchain_versions(),
        "sandbox": config.sandbox.mode,
        "insecure": not config.sandbox.secure,
        "limits": config.sandbox.enforcement(),  # what holds the memory and pids caps here
        "compile_cache_bytes": config.cache_max_bytes,
        "host": platform.node(),
        "uptime_s": round(time.monotonic() - config.started, 1),
        **_with_triton(health_fields(config.device, config.build_dir), config.device),
    }


def _with_triton(fields: dict[str, Any], device: str) -> dict[str, Any]:
    """Triton's version (None: not installed); on the host device, triton among the languages
    checked on the CPU (Triton's interpreter) beside the emulated ones."""
    from agent.languages.triton.compile import triton_version

    version = triton_version()
    installed = version != "none"
    emulated = list(fields.get("emulated") or [])
    if installed and device == "host":
        emulated.append("triton")
    return {**fields, "emulated": emulated, "triton": version if installed else None}


def _has_library(*names: str) -> bool:
    import ctypes

    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


def _run(command: list[str]) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=20,
                              env={**os.environ}).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""

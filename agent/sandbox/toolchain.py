"""The compiler a language runs in the box: its command, version, flags and environment, and the
hooks a device's toolchain overrides (the emulated device's rewrites its source, walls its include
path and explains its messages). Below judging, which compiles with it, and the emulator, which
extends it (tests/test_dependencies.py: no folder imports one above it).
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from agent.sandbox.core import SANDBOX_PATH


class CompileRejected(ValueError):
    """The source was refused before compiling (signature or forbidden pattern)."""


@dataclass(frozen=True)
class Toolchain:
    language: str
    command: str  # the compiler driver on PATH
    version: str  # first line of `--version`, part of the cache key

    def flags(self, arch: str | None) -> list[str]:
        if self.language == "cpp":
            return ["-O3", "-march=native", "-std=c++17", "-fPIC", "-shared"]
        if self.language == "hip":
            return ["-O3", "-std=c++17", "-fPIC", "-shared", f"--offload-arch={arch or 'gfx942'}"]
        # `-cudart shared`: the judge's own ctypes binding and the kernel must share one runtime.
        return ["-O3", "-std=c++17", f"-arch={arch or 'native'}", "-Xcompiler", "-fPIC", "-shared",
                "-cudart", "shared"]

    def env(self) -> dict[str, str]:
        # nvcc is often installed beside hipcc, and hipcc would then pick the NVIDIA platform.
        env = {"HIP_PLATFORM": "amd"} if self.language == "hip" else {}
        # The sandbox's PATH is the standard one; nvcc lives in /usr/local/cuda/bin and hipcc in
        # /opt/rocm/bin (the real directory: the sandbox binds the tree, not the link to it).
        found = shutil.which(self.command)
        folder = os.path.dirname(os.path.realpath(found)) if found else None
        if folder and folder not in SANDBOX_PATH.split(":"):
            env["PATH"] = f"{folder}:{SANDBOX_PATH}"
        return env

    def prepare(self, source: str, cancel: threading.Event | None = None) -> str:
        """The text the compiler gets (the emulated device's toolchain rewrites launches)."""
        return source

    def prepared_name(self, source_name: str) -> str:
        """The file the compiler reads. One that rewrites the source compiles a file of another name
        whose `#line` directive names `source_name`, the user's own text: the compiler then quotes
        the user's lines under its messages, not the rewritten ones."""
        return source_name

    def box_folders(self, work: Path) -> dict[str, Path]:
        """Trusted folders of the parent's (made under `work`, or the agent's own builds) that the
        compiler sees read-only in its box, by name: bound like the box's files."""
        return {}

    def explain(self, output: str) -> str:
        """The compiler's messages as the user reads them."""
        return output

    def missing_solution(self) -> str | None:
        """What a library that does not export `solution` is told at compile time (None: nothing,
        the solution's loading says it)."""
        return None

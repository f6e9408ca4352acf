"""The emulated device in the agent: which jobs it takes, how their source is compiled, and what the
agent says about it.

A `hip` or `cuda` job in mode `check` runs on the emulated device when this agent has no GPU of
that kind and g++ can build the emulator's runtime (once per g++ version and emulator source,
into the compile cache, like the host device's eviction helper). The source goes through the
rewriter in the trusted parent (linear, capped, under a CPU budget and the job's cancel), then
g++ compiles it in the sandbox against the emulator's headers (bound read-only with the agent
package) as the device pass of the pool's GPU (agent.emulator.target), with the walls that keep the
machine's ROCm and CUDA headers out (agent.emulator.unsupported) and the API's header precompiled
in the agent's build folder (build.build_pch), both bound into the compile's box; g++'s messages
about what the emulated device does not model are said plainly (`unsupported.explain`). The result
is cached like any compile, keyed by the g++ version and a hash of every emulator file.
Benchmark and leaderboard modes are refused: the emulator's times mean nothing. The test cases it
runs are chosen by `budget.emulated_cases`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agent.emulator.budget import EMULATED_CASE_BYTES
from agent.emulator.build import INCLUDE_DIR, PCH, build_pch, build_runtime, emulator_flags, gxx_version, runtime_key
from agent.emulator.rewrite import ParseBudget, RewriteError, rewrite_source
from agent.emulator.target import EMULATED_TARGETS
from agent.emulator.unsupported import WALLS, explain, make_walls
from agent.problems.bundle import SOURCE_SUFFIX
from agent.sandbox.modes import AGENT_ROOT, BOX, Sandbox
from agent.sandbox.toolchain import CompileRejected, Toolchain

EMULATED_LANGUAGES = ("hip", "cuda")
REFUSED_MODES = ("benchmark", "leaderboard")
BENCHMARK_REFUSAL = ("benchmark mode needs a real GPU: the emulated device runs check mode only "
                     "(emulated times mean nothing)")


def would_emulate(language: str, device: str) -> bool:
    """A hip/cuda job on an agent whose device is not that GPU runs on the emulator (or nowhere)."""
    return language in EMULATED_LANGUAGES and device != language


@cache
def _runtime_for(cache_dir: Path) -> Path | None:
    return build_runtime(cache_dir)


def emulator_runtime(cache_dir: Path) -> Path | None:
    """libhjemu.so for this g++, built on first use; None without g++ or when the build fails."""
    runtime = _runtime_for(cache_dir)
    if runtime is not None and not runtime.is_file():  # the cache was cleared under us
        _runtime_for.cache_clear()
        runtime = _runtime_for(cache_dir)
    return runtime


def emulated_languages(device: str, cache_dir: Path) -> list[str]:
    """What /v1/health reports: the languages this agent checks on the emulator."""
    languages = [lang for lang in EMULATED_LANGUAGES if would_emulate(lang, device)]
    return languages if languages and emulator_runtime(cache_dir) is not None else []


def health_fields(device: str, cache_dir: Path) -> dict[str, object]:
    return {"emulated": emulated_languages(device, cache_dir), "emulator": {"max_case_bytes": EMULATED_CASE_BYTES}}


@cache
def _pch_for(cache_dir: Path, language: str) -> Path | None:
    return build_pch(cache_dir, language)


def emulator_pch(cache_dir: Path, language: str) -> Path | None:
    """build.build_pch's folder for this g++ and language, built on first use."""
    pch = _pch_for(cache_dir, language)
    if pch is not None and not pch.is_dir():  # the cache was cleared under us
        _pch_for.cache_clear()
        pch = _pch_for(cache_dir, language)
    return pch


@dataclass(frozen=True)
class EmulatedToolchain(Toolchain):
    include_dir: str = str(INCLUDE_DIR)
    target: str = ""  # the GPU it stands for (agent.emulator.target); empty: the language's
    pch: str = ""  # build.build_pch's folder, the parent's; empty: none

    @property
    def device_target(self) -> str:
        return self.target or EMULATED_TARGETS[self.language]

    def flags(self, arch: str | None) -> list[str]:
        # The pool's GPU, not `arch`: that is the local compiler's target for compile-only jobs.
        # The precompiled header's folder is named whether or not there is one: the same flags, the
        # same compile cache key (the library is the same).
        return emulator_flags(self.language, Path(self.include_dir), f"{BOX}/{WALLS}", self.device_target,
                              pch=f"{BOX}/{PCH}")

    def env(self) -> dict[str, str]:
        return {}

    def prepare(self, source: str, cancel: threading.Event | None = None) -> str:
        try:
            return rewrite_source(source, filename=f"solution{SOURCE_SUFFIX[self.language]}",
                                  budget=ParseBudget(cancel))
        except RewriteError as exc:
            raise CompileRejected(f"the emulated device cannot compile this source: {exc}") from None

    def prepared_name(self, source_name: str) -> str:
        return f"emulated-{source_name}"

    def box_folders(self, work: Path) -> dict[str, Path]:
        return {WALLS: make_walls(work / WALLS), **({PCH: Path(self.pch)} if self.pch else {})}

    def explain(self, output: str) -> str:
        return explain(output, self.device_target)

    def missing_solution(self) -> str:
        return ("the compiled library does not export `solution` (extern \"C\", outside any #if that is false "
                "here): the emulated device compiles the source once, as the GPU's device pass, so code under "
                "`#if !defined(__HIP_DEVICE_COMPILE__)` or `#ifndef __CUDA_ARCH__` is left out; leave host code "
                "unguarded")


def emulated_toolchain(language: str, sandbox: Sandbox, build_dir: Path | None = None) -> EmulatedToolchain | None:
    """With `build_dir` (the agent's own builds), the API's header precompiled there."""
    version = gxx_version()
    if version is None:
        return None
    # Inside a sandbox the agent package (and the headers in it) is bound at AGENT_ROOT/agent.
    include_dir = f"{AGENT_ROOT}/agent/emulator/include" if sandbox.mounts_box else str(INCLUDE_DIR)
    pch = emulator_pch(build_dir, language) if build_dir is not None else None
    return EmulatedToolchain(language, "g++", f"{version}; hjemu {runtime_key(version)}", include_dir,
                             pch=str(pch or ""))

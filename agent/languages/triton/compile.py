"""The parent's side of a Triton compile: run agent.languages.triton.report_child in the sandbox
(the submission's module runs there, and Triton's compiler with it), take its report, and keep the
source itself as what later phases load.

The child prints its report as the last line of its output, after a marker; the parent reads only
that line (JSON: linear to parse, bounded by the output cap). The report is the user's own code's
word on itself: it ranks nothing and is shown only to its author.
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from agent.languages.triton.precompile import CACHE_NAME, MAX_CACHE_BYTES, CacheTreeError, cache_overflow, pack_cache
from agent.languages.triton.report import REPORT_MARKER
from agent.sandbox.boxfs import remove_tree
from agent.sandbox.modes import BoxLayout, Sandbox
from agent.sandbox.resources import MIB, ProcessLimits, ResourceLimits

REPORT_OUTPUT_BYTES = 8 * MIB  # the report with its AMDGCN listing fits; the user's prints are cut before
COMPILE_RAM_BYTES = 8192 * MIB
# Each file of a GPU agent's Triton cache (a kernel's IR, its binary): no larger than the whole entry.
CACHE_FILE_BYTES = MAX_CACHE_BYTES
# How often the parent measures the Triton cache the compile is writing (cache_overflow): the
# sandbox's folder is a host folder, which no size-capped mount bounds here (bwrap 0.8), so the
# compile is stopped at the first look that finds it over its bounds.
CACHE_WATCH_S = 0.2


def compile_triton(*, source: str, launch: dict[str, Any], box: Path, sandbox: Sandbox, limits: ResourceLimits,
                   cancel: threading.Event | None = None, archive: Path | None = None,
                   ) -> tuple[bool, str, Path | None, dict[str, Any] | None, bool]:
    """(ok, output, the source as a file of the parent's, the report, timed out). With `archive`
    (a GPU agent: `launch` has a `precompile` entry) the Triton cache the compile wrote is packed
    there with the report (agent.languages.triton.precompile)."""
    work = box.parent / "compile"
    remove_tree(work)
    work.mkdir(parents=True)
    (work / "solution.py").write_text(source)
    if "precompile" in launch:  # the child stops itself, with a clear error, before the limit (precompile_child)
        launch = {**launch, "precompile": {**launch["precompile"], "compile_s": limits.compile_s}}
    (work / "launch.json").write_text(json.dumps(launch))
    writable = {}
    if archive is not None:
        (work / CACHE_NAME).mkdir()
        writable[CACHE_NAME] = work / CACHE_NAME
    proc = sandbox.spawn(
        [sandbox.python, *sandbox.python_flags, "-m", "agent.languages.triton.report_child"],
        box=box,
        limits=ProcessLimits(wall_s=limits.compile_s, cpu_s=int(limits.compile_s * 2) + 1, memory_bytes=None,
                             ram_bytes=COMPILE_RAM_BYTES, file_bytes=CACHE_FILE_BYTES if archive else
                             REPORT_OUTPUT_BYTES * 2, nproc=64, output_bytes=REPORT_OUTPUT_BYTES),
        env={"TRITON_HOME": "/tmp"},
        layout=BoxLayout(size_bytes=64 * MIB, files={"solution.py": work / "solution.py",
                                                    "launch.json": work / "launch.json"}, writable=writable),
    )
    overflow: list[str] = []
    outcome = proc.wait(cancel, tick=_cache_watch(work / CACHE_NAME, overflow) if archive is not None else None)
    target = box.parent / "solution.py"  # the parent's copy: later phases load it as a sealed memfd
    shutil.copyfile(work / "solution.py", target)
    said, report = split_report(outcome.output)
    packed = None
    if overflow:
        packed = f"error: the compile was stopped: {overflow[0]} (Triton's cache of every case's kernels)"
    elif archive is not None and outcome.ok and report is not None:
        try:
            pack_cache(work / CACHE_NAME, report, archive)
        except CacheTreeError as exc:
            packed = f"error: {exc}"
    remove_tree(work)
    if packed is not None:
        return False, f"{said}\n{packed}".strip(), None, None, False
    if outcome.timed_out:
        why = (" (on a GPU agent every @triton.autotune configuration is compiled for every case's sizes: list "
               "fewer configurations)") if archive is not None else ""
        return False, f"compilation took longer than {limits.compile_s:g} s and was stopped{why}\n{said}", None, None, \
            True
    if outcome.oom_killed:
        return False, f"error: the compile ran out of memory (limit {COMPILE_RAM_BYTES // MIB} MiB)\n{said}", \
            None, None, False
    if outcome.signal is not None:
        return False, (f"{said.strip()}\nthe launcher crashed while it was compiled (signal {outcome.signal}): there "
                       "the buffers are stand-ins at GPU addresses, which only a kernel may read or write").strip(), \
            None, None, False
    if not outcome.ok or report is None:
        return False, said.strip() or f"the compile ended with exit code {outcome.returncode}", None, None, False
    return True, summary_text(report), target, report, False


def _cache_watch(folder: Path, overflow: list[str]) -> Callable[[], bool]:
    """A wait's tick: True (stop the compile) once the cache folder is over its bounds, the reason
    appended to `overflow`; measured every CACHE_WATCH_S."""
    last = [time.monotonic()]

    def tick() -> bool:
        now = time.monotonic()
        if now - last[0] < CACHE_WATCH_S:
            return False
        last[0] = now
        found = cache_overflow(folder)
        if found is not None:
            overflow.append(found)
        return found is not None

    return tick


def split_report(output: str) -> tuple[str, dict[str, Any] | None]:
    """(what was said before the report, the report) from the child's output."""
    at = output.rfind(REPORT_MARKER)
    if at < 0:
        return output, None
    line = output[at + len(REPORT_MARKER):].split("\n", 1)[0]
    try:
        report = json.loads(line)
    except ValueError:
        return output[:at], None
    return output[:at], report if isinstance(report, dict) else None


def summary_text(report: dict[str, Any]) -> str:
    """One line per target and kernel: what the compile output says (and the CLI and web show)."""
    lines = []
    for target in report.get("targets", []):
        if target.get("launcher_error"):
            lines.append(f"{target['target']}: {target['launcher_error']}")
        for k in target.get("kernels", []):
            if target.get("backend") == "hip":
                lines.append(f"{target['target']} {k.get('name')}: {k.get('vgprs')} VGPRs, {k.get('agprs')} AGPRs, "
                             f"{k.get('sgprs')} SGPRs, {k.get('spills', 0)} spills, LDS {k.get('lds_bytes')} bytes, "
                             f"occupancy {k.get('occupancy_waves_per_simd')} waves/SIMD, "
                             f"{k.get('mfma_instructions')} MFMA instructions")
            else:
                lines.append(f"{target['target']} {k.get('name')}: {k.get('registers', '?')} registers, spills "
                             f"{k.get('spill_stores_bytes', '?')} bytes, shared {k.get('shared_bytes', '?')} bytes, "
                             f"{k.get('mma_instructions')} tensor-core instructions")
    if not lines:
        lines.append("compiled; the launcher launched no kernel")
    return "\n".join(lines)


@cache
def triton_version() -> str:
    """The installed Triton's version, from its distribution's metadata without importing it (the
    parent never loads Triton): part of every Triton compile's cache key, read once per process."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return "none"

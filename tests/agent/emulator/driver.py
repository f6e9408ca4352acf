"""Compile kernels for the emulator, for the emulator's tests and bench/emulator.py (solutions on
problems are judged through the agent itself: `manage.py problem check`, tests/submissions/test_problem_check.py).

- `compile_library`: rewrite + g++ into a solution.so (unlinked, as the agent builds it);
- `compile_program`: a test program with a main(), linked against libhjemu.so.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from agent.emulator.build import emulator_flags
from agent.emulator.rewrite import RewriteError, rewrite_source


class CompileFailed(Exception):
    """The rewriter or g++ refused the source; the message is what a user would see."""


def _rewritten(source: str, workdir: Path, name: str) -> Path:
    try:
        text = rewrite_source(source, filename=name)
    except RewriteError as exc:
        raise CompileFailed(str(exc)) from exc
    path = workdir / f"{hashlib.sha256(text.encode()).hexdigest()[:20]}.cpp"
    path.write_text(text)
    return path


def _compile(command: list[str], workdir: Path, suffix: str) -> Path:
    """Run g++ once per command line (sources are named by their content)."""
    output = workdir / f"{hashlib.sha256(' '.join(command).encode()).hexdigest()[:20]}{suffix}"
    if output.is_file():
        return output
    result = subprocess.run([*command, "-o", str(output)], capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise CompileFailed(result.stdout + result.stderr)
    return output


def compile_library(source: str, language: str, workdir: Path, name: str = "solution") -> Path:
    path = _rewritten(source, workdir, name)
    return _compile(["g++", *emulator_flags(language), str(path)], workdir, ".so")


def compile_program(source: str, language: str, runtime: Path, workdir: Path, name: str = "test",
                    extra: list[str] | None = None) -> Path:
    path = _rewritten(source, workdir, name)
    flags = [f for f in emulator_flags(language) if f != "-shared"]
    return _compile(["g++", *flags, *(extra or []), str(path), "-x", "none", str(runtime),
                     f"-Wl,-rpath,{runtime.parent}"], workdir, ".bin")

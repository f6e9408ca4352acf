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
from agent.emulator.target import EMULATED_TARGETS
from agent.emulator.unsupported import WALLS, explain, make_walls


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


def _flags(language: str, workdir: Path) -> list[str]:
    """The agent's flags, with the walls in the work folder (the agent makes them in each job's box)."""
    return emulator_flags(language, walls=make_walls(workdir / WALLS))


def _compile(command: list[str], workdir: Path, suffix: str, language: str) -> Path:
    """Run g++ once per command line (sources are named by their content); a failure says what the
    agent would say."""
    output = workdir / f"{hashlib.sha256(' '.join(command).encode()).hexdigest()[:20]}{suffix}"
    if output.is_file():
        return output
    result = subprocess.run([*command, "-o", str(output)], capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise CompileFailed(explain(result.stdout + result.stderr, EMULATED_TARGETS[language]))
    return output


def compile_library(source: str, language: str, workdir: Path, name: str = "solution") -> Path:
    path = _rewritten(source, workdir, name)
    return _compile(["g++", *_flags(language, workdir), str(path)], workdir, ".so", language)


def compile_program(source: str, language: str, runtime: Path, workdir: Path, name: str = "test",
                    extra: list[str] | None = None) -> Path:
    path = _rewritten(source, workdir, name)
    flags = [f for f in _flags(language, workdir) if f != "-shared"]
    return _compile(["g++", *flags, *(extra or []), str(path), "-x", "none", str(runtime),
                     f"-Wl,-rpath,{runtime.parent}"], workdir, ".bin", language)

"""The kernel language and the runtime API on the emulator: each program under kernels/ checks its
own results and prints ALL OK (see the program for what it covers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.emulator.conftest import run_program
from tests.agent.emulator.driver import CompileFailed


@pytest.mark.parametrize(("name", "api"), [
    ("blocks.hip", "hip"),
    ("wavefront.hip", "hip"),
    ("warps.cu", "cuda"),
    ("launches.cu", "cuda"),
    ("vectors_math.cpp", "hip"),
    ("vectors_math.cpp", "cuda"),
    ("api.cpp", "hip"),
    ("api.cpp", "cuda"),
    ("matrix.hip", "hip"),
    ("matrix_shapes.hip", "hip"),
    ("amdgcn.hip", "hip"),
    ("rocwmma.hip", "hip"),
    ("wmma_lowp.cu", "cuda"),
])
def test_program_checks_pass(emu_programs: dict[tuple[str, str], Path | CompileFailed], name: str,
                             api: str) -> None:
    result = run_program(emu_programs, name, api)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ALL OK" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("threads", ["1", "3"])
def test_results_do_not_depend_on_the_number_of_host_threads(
        emu_programs: dict[tuple[str, str], Path | CompileFailed], threads: str) -> None:
    result = run_program(emu_programs, "blocks.hip", "hip", env={"HJEMU_THREADS": threads})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ALL OK" in result.stdout, result.stdout + result.stderr

"""The child loads each solution library apart: a later one (the ranked pass's reference solution)
binds its own functions even where the user's library, loaded first, defines the same names."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent.harness.child import load_libraries

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

SOURCE = """
__attribute__((noinline)) int helper() { return %d; }
extern "C" int solution() { return helper(); }
"""


def test_a_later_library_calls_its_own_functions_not_the_first_ones(tmp_path: Path) -> None:
    fds = []
    for value in (1, 2):  # the user's library first, then the reference's
        (tmp_path / f"lib{value}.cpp").write_text(SOURCE % value)
        subprocess.run(["g++", "-O2", "-fPIC", "-shared", "-o", str(tmp_path / f"lib{value}.so"),
                        str(tmp_path / f"lib{value}.cpp")], check=True, timeout=120)
        fds.append(os.open(tmp_path / f"lib{value}.so", os.O_RDONLY))
    try:
        user, reference = load_libraries([str(fd) for fd in fds])
    finally:
        for fd in fds:
            os.close(fd)
    user.restype = reference.restype = ctypes.c_int
    assert (user(), reference()) == (1, 2)

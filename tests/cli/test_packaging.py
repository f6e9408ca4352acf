"""`pip install ./cli` on its own: the CLI's wheel (cli/pyproject.toml) installs offline into a bare
virtual environment, brings nothing but itself, and `hipjudge --help` runs there without Django."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [
    pytest.mark.slow,  # a virtual environment with pip in it, and a wheel built and installed: seconds of CPU
    pytest.mark.skipif(importlib.util.find_spec("ensurepip") is None, reason="this Python has no ensurepip"),
]
# Whatever this machine's pip is told (an index, extra wheel folders): the install below sees only the wheel.
HERMETIC = {key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "PYTHON"))}
HERMETIC |= {"PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=HERMETIC, capture_output=True, text=True, timeout=180)


def test_the_cli_installs_alone_offline_and_runs_without_django(tmp_path: Path) -> None:
    # The wheel is built from a copy, by the project environment's own setuptools (no build isolation,
    # so nothing is fetched), leaving the worktree without build/ or egg-info folders.
    source = tmp_path / "source" / "cli"
    shutil.copytree(ROOT / "cli", source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    wheels = tmp_path / "wheels"
    built = run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                 "print(build_meta.build_wheel(sys.argv[1]))", str(wheels)], cwd=source)
    assert built.returncode == 0, built.stderr
    assert built.stdout.split()[-1].startswith("hipjudge_cli-")

    venv, elsewhere = tmp_path / "venv", tmp_path / "elsewhere"  # no `cli` folder in the working directory
    elsewhere.mkdir()
    created = run([sys.executable, "-m", "venv", str(venv)], cwd=elsewhere)  # pip from ensurepip
    assert created.returncode == 0, created.stderr
    python = venv / "bin" / "python"
    installed = run([str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheels),
                     "hipjudge-cli"], cwd=elsewhere)
    assert installed.returncode == 0, installed.stderr

    listed = run([str(python), "-m", "pip", "list", "--format=json"], cwd=elsewhere)
    assert listed.returncode == 0, listed.stderr
    assert {p["name"] for p in json.loads(listed.stdout)} - {"pip", "setuptools"} == {"hipjudge-cli"}
    no_django = run([str(python), "-c", "import django"], cwd=elsewhere)
    assert no_django.returncode != 0
    assert "No module named 'django'" in no_django.stderr
    where = run([str(python), "-c", "import cli; print(cli.__file__)"], cwd=elsewhere)
    assert where.stdout.strip().startswith(str(venv)), where.stdout  # the installed copy, not the worktree's

    helped = run([str(venv / "bin" / "hipjudge"), "--help"], cwd=elsewhere)
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: hipjudge")
    assert "submit" in helped.stdout

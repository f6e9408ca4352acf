"""The copy of agent/ that every dstack VM receives through `files:` (content-addressed)."""

from __future__ import annotations

import hashlib
import os
import shutil
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from fleets.dstack import DstackError
from fleets.dstack.specs import CONTAINER_DIR

AGENT_SIZE_LIMIT = 2 * 1024 * 1024  # dstack's default limit for `files:`
# The modules the agent imports beyond the standard library, and the file in agent/ that names their
# distributions and bounds (tests/fleets/test_agent_requirements.py keeps both true to the imports).
AGENT_IMPORTS = ("numpy", "yaml", "ml_dtypes", "triton")
AGENT_REQUIREMENTS = "requirements.txt"


def agent_install_command(container_dir: str = CONTAINER_DIR) -> str:
    """The VM's setup command for the agent's packages: nothing when the image has every module (a
    prebuilt image starts faster), else pip installs the shipped requirements. The container is the
    agent's alone, so pip may write to the system Python even where the image marks it externally
    managed (PEP 668); pip versions before that flag ignore the variable."""
    requirements = f"{container_dir}/agent/{AGENT_REQUIREMENTS}"
    return (f"python3 -c 'import {', '.join(AGENT_IMPORTS)}' 2>/dev/null || "
            f"PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q -r {requirements}")


def _source_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix not in (".pyc", ".pyo"))


@lru_cache(maxsize=4)
def _package(source: Path, target_root: Path) -> Path:
    files = _source_files(source)
    digest = hashlib.sha256()
    size = 0
    for path in files:
        data = path.read_bytes()
        size += len(data)
        digest.update(str(path.relative_to(source)).encode() + b"\0" + data)
    if size > AGENT_SIZE_LIMIT:
        raise DstackError(f"The agent package is {size / 1024 / 1024:.1f} MiB, over dstack's 2 MiB limit for "
                          "`files:`.", "Remove large files from agent/ or bake the agent into the image.")
    target = target_root / digest.hexdigest()[:16] / "agent"
    if not target.is_dir():
        staging = target.parent.with_name(f"{target.parent.name}.{os.getpid()}.tmp") / "agent"
        for path in files:
            dest = staging / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)
        try:  # rename is atomic: concurrent workers agree on one copy
            staging.parent.rename(target.parent)
        except OSError:
            shutil.rmtree(staging.parent, ignore_errors=True)
    return target


def agent_package() -> Path:
    """A copy of agent/ without caches, at most 2 MiB, shipped to every VM with `files:`. Content-
    addressed, so a changed agent gets a new folder and a running worker never ships a half copy."""
    source = Path(settings.BASE_DIR) / "agent"
    return _package(source.resolve(), (Path(settings.VAR_DIR) / "dstack-agent").resolve())

"""What the sandboxed child's Python needs, from places that hold none of the platform's files.

The agent package may live in the platform's checkout (the local pool runs it from the repository,
next to var/ with the database and the secret key), so the sandbox never binds it: it binds a
content-addressed copy made outside the repository, and NumPy's own directories, each by itself.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import stat
import sys
import sysconfig
import tempfile
import uuid
from functools import cache
from pathlib import Path

AGENT_PACKAGE = Path(__file__).resolve().parent.parent
# Third-party packages the child imports (triton: only a Triton job's child and compile; absent
# where it is not installed).
CHILD_PACKAGES = ("numpy", "triton")


def _package_files() -> list[Path]:
    return sorted(p for p in AGENT_PACKAGE.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".so"))


def _private_dir(path: Path) -> Path:
    """`path` as a directory only this user can write, refusing one someone else planted."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise RuntimeError(f"{path} is not a private directory of this user: refusing to use it")
    return path


def runtime_base() -> Path:
    """Where copies live: HIPJUDGE_RUNTIME_DIR, else a private directory in the system's temp dir."""
    configured = os.environ.get("HIPJUDGE_RUNTIME_DIR")
    if configured:
        return _private_dir(Path(configured))
    return _private_dir(Path(tempfile.gettempdir()) / f"hipjudge-runtime-{os.getuid()}")


@cache
def _package_digest() -> str:
    digest = hashlib.sha256()
    for path in _package_files():
        digest.update(str(path.relative_to(AGENT_PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def agent_copy() -> Path:
    """A read-only copy of the agent package, named by the hash of its files: <dir>/agent. Made
    again if it went away (a temp-dir cleaner) while the agent runs."""
    target = runtime_base() / f"agent-{_package_digest()}"
    if (target / "agent" / "__init__.py").is_file():
        return target / "agent"
    files = _package_files()
    staging = runtime_base() / f".staging-{uuid.uuid4().hex}"
    try:
        for path in files:
            dest = staging / "agent" / path.relative_to(AGENT_PACKAGE)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
        for path in sorted((staging / "agent").rglob("*"), reverse=True):
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            staging.rename(target)  # atomic: a concurrent agent sees all of it or none
        except OSError:
            if not (target / "agent" / "__init__.py").is_file():
                raise
    finally:
        if staging.exists():
            _remove_tree(staging)
    return target / "agent"


def _remove_tree(path: Path) -> None:
    for sub in path.rglob("*"):
        if sub.is_dir():
            sub.chmod(0o700)
    shutil.rmtree(path, ignore_errors=True)


@cache
def site_package_dirs() -> dict[str, Path]:
    """name -> directory of each package the child imports, plus wheel-bundled libraries beside it
    (numpy.libs: NumPy's extension modules find OpenBLAS there by a relative rpath)."""
    found: dict[str, Path] = {}
    for name in CHILD_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        package = Path(next(iter(spec.submodule_search_locations))).resolve()
        found[name] = package
        libs = package.parent / f"{name}.libs"
        if libs.is_dir():
            found[f"{name}.libs"] = libs.resolve()
    return found


@cache
def interpreter_paths() -> tuple[str, list[str]]:
    """(the real interpreter binary, the trees it needs: its stdlib, its headers and shared libpython). A venv's
    python is a symlink into the project; the child runs the binary it points to."""
    binary = os.path.realpath(sys.executable)
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix, "installed_base": sys.base_prefix,
            "installed_platbase": sys.base_exec_prefix}
    paths = sysconfig.get_paths(vars=base)
    trees = {os.path.realpath(paths["stdlib"]), os.path.realpath(paths["platstdlib"])}
    # Its C headers: Triton builds its launcher stub (a Python extension) with them in a GPU agent's
    # compile phase (agent.languages.triton.precompile); read-only headers, nothing to run.
    trees |= {os.path.realpath(paths[key]) for key in ("include", "platinclude") if key in paths}
    library = sysconfig.get_config_var("LDLIBRARY")
    libdir = sysconfig.get_config_var("LIBDIR")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and library and libdir:
        for entry in Path(libdir).glob(f"{library}*"):
            trees.add(str(entry))
            trees.add(os.path.realpath(entry))
    return binary, sorted(t for t in trees if os.path.exists(t))

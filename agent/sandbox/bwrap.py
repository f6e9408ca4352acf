"""The bubblewrap sandbox: every namespace unshared (no network), no nested user namespaces, all
capabilities dropped, a seccomp filter, a read-only view of exactly the system directories the
compilers and the child need, a private /tmp of a fixed size, the job's box at /box.

What is bound is listed, never inferred from where things happen to live: /usr is bound by its
standard subdirectories only, so a checkout under /usr (the python image's /usr/src/app) stays out
of view; the agent package and NumPy come from copies and directories of their own (child_tree);
and the directory the running agent came from (the platform's checkout, with var/), the agent's
workdir and its token are masked wherever a bound tree would contain them: a checkout under /usr
would otherwise hand the child the platform's secret key and the agent's token.
"""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

from agent.sandbox.child_tree import AGENT_PACKAGE, agent_copy, interpreter_paths, site_package_dirs
from agent.sandbox.core import AGENT_ROOT, BOX, DEFAULT_RAM_BYTES, SITE_ROOT, BoxLayout, Sandbox
from agent.sandbox.fd_handoff import FdHandoff
from agent.sandbox.resources import ProcessLimits
from agent.sandbox.seccomp import pipe_holding, sandbox_filter

_TOP_LEVEL = ("bin", "lib", "lib32", "lib64", "libx32", "sbin")  # symlinks into /usr on merged systems
_USR_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32", "libexec", "include", "share")
_USR_LOCAL_DIRS = ("bin", "sbin", "lib", "lib64", "libexec", "include", "share")
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group",
              "nsswitch.conf", "localtime", "hipcc", "OpenCL")
_GPU_NODES = {"hip": ("/dev/kfd", "/dev/dri"), "cuda": ()}  # cuda nodes are globbed below
# Toolchains and GPU drivers where they live outside the standard directories. /usr/local/nvidia is
# where NVIDIA's container and VM images mount the driver (libcuda.so.1; ld.so.cache points there).
_OPTIONAL_TREES = ("/opt/rocm", "/usr/local/cuda", "/usr/local/nvidia")
_MASK_BYTES = 4096


def platform_trees() -> list[Path]:
    """Directories that hold the platform's own files: where the running agent package came from
    (a checkout: the repository and its var/) and the platform's var directory when set."""
    trees = [AGENT_PACKAGE.parent]
    if os.environ.get("HIPJUDGE_VAR_DIR"):
        trees.append(Path(os.environ["HIPJUDGE_VAR_DIR"]).resolve())
    return trees


class BwrapSandbox(Sandbox):
    mode = "bwrap"
    secure = True
    mounts_box = True
    # -S: the child imports only what PYTHONPATH names (the agent's copy, NumPy's directories), so
    # `site` has nothing to add; it would scan the host interpreter's site-packages, bound with its
    # stdlib, and run the .pth files there: host code in every child, and their imports at every
    # child's start.
    python_flags = ("-P", "-S")

    def command(self, argv: list[str], *, box: Path, device: str, env: dict[str, str], limits: ProcessLimits,
                layout: BoxLayout | None, handoff: FdHandoff | None) -> tuple[list[str], str, tuple[int, ...]]:
        args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
        if userns_can_be_disabled():
            args += ["--unshare-user", "--disable-userns"]
        if os.geteuid() == 0:
            args += ["--cap-drop", "ALL"]
        bound = _system_binds(args)
        # The private /tmp comes before the trees bound below: a Python tree that lives under /tmp
        # must stay visible on top of it, not be hidden by it.
        tmp_bytes = str(limits.tmp_size(DEFAULT_RAM_BYTES))
        args += ["--proc", "/proc", "--dev", "/dev", "--size", tmp_bytes, "--tmpfs", "/dev/shm",
                 "--size", tmp_bytes, "--tmpfs", "/tmp"]
        for name in _ETC_FILES:
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        for tree in _OPTIONAL_TREES:
            real = os.path.realpath(tree)
            if os.path.exists(real) and not _inside_any(real, bound):
                args += ["--ro-bind", real, real]
                bound.append(real)
            if real != tree and os.path.exists(real) and not _inside_any(os.path.dirname(tree), bound):
                # /usr/local/cuda -> cuda-13.0: ld.so.cache and LD_LIBRARY_PATH may name the link
                args += ["--symlink", real, tree]
        binary, trees = interpreter_paths()
        for tree in trees:
            args += ["--ro-bind", tree, tree]
        bound += trees
        for hidden in (*platform_trees(), *self.hidden):
            if hidden.exists() and _inside_any(str(hidden), bound):
                if hidden.is_dir():
                    args += ["--size", str(_MASK_BYTES), "--tmpfs", str(hidden), "--remount-ro", str(hidden)]
                else:
                    args += ["--ro-bind", "/dev/null", str(hidden)]
        # After the masks: a venv inside the checkout is masked, the interpreter binary it holds is not.
        args += ["--ro-bind", binary, binary]
        args += ["--ro-bind", str(agent_copy()), f"{AGENT_ROOT}/agent"]
        for name, path in site_package_dirs().items():
            args += ["--ro-bind", str(path), f"{SITE_ROOT}/{name}"]
        args += _box_binds(box, layout)
        for node in _gpu_nodes(device):
            args += ["--dev-bind", node, node]
        # The sandbox's own root and /dev are tmpfs without a size: nothing may be written there.
        args += ["--remount-ro", "/dev", "--remount-ro", "/"]
        if argv and os.path.realpath(argv[0]) == binary:
            argv = [binary, *argv[1:]]  # a venv's python is a symlink the sandbox does not hold
        env = {**env, "PYTHONPATH": f"{AGENT_ROOT}:{SITE_ROOT}", "HIPJUDGE_BOX": BOX}
        args += ["--clearenv"]
        for key, value in env.items():
            args += ["--setenv", key, value]
        fds: tuple[int, ...] = ()
        program = sandbox_filter(threads_only=limits.threads_only)
        if program is not None:
            fds = (pipe_holding(program),)
            args += ["--seccomp", str(fds[0])]
        args += ["--chdir", BOX, "--", *argv]
        return args, str(box), fds


def _system_binds(args: list[str]) -> list[str]:
    """Bind the standard system directories read-only; returns the host trees now visible."""
    bound: list[str] = []
    for top in _TOP_LEVEL:
        path = Path("/") / top
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
            bound.append(str(path))
    for parent, names in (("/usr", _USR_DIRS), ("/usr/local", _USR_LOCAL_DIRS)):
        for name in names:
            path = Path(parent) / name
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
                bound.append(str(path))
    return bound


def _box_binds(box: Path, layout: BoxLayout | None) -> list[str]:
    if layout is None:
        return ["--bind", str(box), BOX]
    args = ["--size", str(layout.size_bytes), "--tmpfs", BOX]
    for name, path, writable in layout.entries():
        args += ["--bind" if writable else "--ro-bind", str(path), f"{BOX}/{name}"]
    return args


def _inside_any(path: str, trees: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == t or real.startswith(t.rstrip("/") + "/") for t in trees)


def _gpu_nodes(device: str) -> list[str]:
    if device == "hip":
        return [n for n in _GPU_NODES["hip"] if os.path.exists(n)]
    if device == "cuda":
        return sorted(str(p) for p in Path("/dev").glob("nvidia*"))
    return []


@cache
def userns_can_be_disabled() -> bool:
    """bwrap >= 0.8 can forbid user namespaces inside the sandbox (it needs one of its own)."""
    probe = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
             "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
             "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "/usr/bin/true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def bwrap_works() -> bool:
    probe = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
             "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
             "--proc", "/proc", "--dev", "/dev", "/usr/bin/true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False

"""The sandbox's mounts and limits, checked by running real programs under bubblewrap."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import agent.sandbox.bwrap as bwrap_module
from agent.sandbox.cgroups import cgroup_manager
from agent.sandbox.child_tree import AGENT_PACKAGE, agent_copy, interpreter_paths
from agent.sandbox.modes import BoxLayout, BwrapSandbox, Outcome, detect_sandbox
from agent.sandbox.resources import MIB, ProcessLimits
from agent.sandbox.seccomp import no_new_processes_filter
from tests.agent.conftest import wait_until_no_process_mentions

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
needs_cgroups = pytest.mark.skipif(not cgroup_manager().usable,
                                   reason=f"no cgroup can be made here: {cgroup_manager().why_not}")

LIMITS = ProcessLimits(wall_s=20, cpu_s=20, memory_bytes=1024 * MIB, file_bytes=1024 * MIB, nproc=16,
                       output_bytes=8192)
REPO = AGENT_PACKAGE.parent
PYTHON = interpreter_paths()[0]  # what the sandbox runs for sys.executable (a venv's python is a link)


def sandbox() -> BwrapSandbox:
    found = detect_sandbox(preferred="bwrap")
    assert isinstance(found, BwrapSandbox)
    return found


def run_in(box: Path, script: str, limits: ProcessLimits = LIMITS, **kwargs) -> Outcome:
    return sandbox().spawn(["/bin/sh", "-c", script], box=box, limits=limits, **kwargs).wait()


def run(argv: list[str], box: Path) -> str:
    outcome = sandbox().spawn(argv, box=box, limits=LIMITS).wait()
    assert outcome.returncode == 0, outcome.output
    return outcome.output


@pytest.fixture
def box(job_box: Path) -> Path:
    return job_box


def test_the_child_gets_a_private_writable_tmp_and_the_box(tmp_path, box):
    (box / "input.txt").write_text("in the box\n")
    (tmp_path / "outside.txt").write_text("host file\n")
    probe = Path("/tmp") / f"hj-sandbox-probe-{tmp_path.name}"
    output = run(["/bin/sh", "-c", f"cat /box/input.txt; touch {probe} && echo writable; "
                  f"test -e {tmp_path}/outside.txt && echo LEAK || echo hidden"], box)
    assert output.split("\n")[:3] == ["in the box", "writable", "hidden"]
    assert not probe.exists()  # what the child wrote to its /tmp never reaches the host's


def test_tmp_and_dev_shm_are_sized_and_the_rest_of_the_tree_is_read_only(box):
    limits = replace(LIMITS, tmp_bytes=8 * MIB)
    fill = "dd if=/dev/zero of={0}/fill bs=1M count=64 2>/dev/null; echo {1}=$(du -m {0}/fill | cut -f1)"
    writes = "for p in /x /usr/x /dev/x /opt/hipjudge/agent/x; do { true > $p; } 2>/dev/null && echo wrote $p; done"
    outcome = run_in(box, "; ".join([fill.format("/tmp", "tmp"), fill.format("/dev/shm", "shm"), writes,
                                     "echo ok > /dev/null && echo devices-work"]), limits)
    assert outcome.output.split() == ["tmp=8", "shm=8", "devices-work"], outcome.output


def test_a_private_box_is_a_sized_tmpfs_with_trusted_files_read_only(tmp_path, box):
    trusted = tmp_path / "solution.so"
    trusted.write_bytes(b"library")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    layout = BoxLayout(size_bytes=4 * MIB, files={"solution.so": trusted}, writable={"out": out_dir})
    outcome = run_in(box, "cat /box/solution.so; echo; { true > /box/solution.so; } 2>/dev/null && echo CHANGED;"
                     "dd if=/dev/zero of=/box/fill bs=1M count=64 2>/dev/null; echo box=$(du -m /box/fill | cut -f1);"
                     "echo result > /box/out/r.txt; ls /box | tr '\\n' ' '", layout=layout)
    assert outcome.output.split("\n")[:2] == ["library", "box=4"], outcome.output
    assert outcome.output.split("\n")[2].split() == ["fill", "out", "solution.so"]
    assert trusted.read_bytes() == b"library"
    assert (out_dir / "r.txt").read_text() == "result\n"
    assert list(box.iterdir()) == []  # nothing of it reached the job's host directory


def test_a_box_layout_refuses_names_that_leave_the_box(tmp_path):
    for name in ("../escape", "/abs", "a/../../b", ""):
        with pytest.raises(ValueError, match="plain relative name"):
            BoxLayout(size_bytes=MIB, files={name: tmp_path})


def test_descriptors_passed_by_number_reach_the_child(box):
    read_end, write_end = os.pipe()
    try:
        outcome = run_in(box, f"{PYTHON} -c 'import os; os.write({write_end}, b\"through-the-pipe\\n\")'",
                         pass_fds=[write_end])
        os.close(write_end)
        assert outcome.ok, outcome.output
        assert os.read(read_end, 100) == b"through-the-pipe\n"
    finally:
        os.close(read_end)


def test_the_repository_and_usr_src_are_out_of_view_and_the_child_python_comes_from_copies(box):
    checks = [f"test -e {REPO}/pyproject.toml && echo REPO-VISIBLE", "test -e /usr/src && echo USR-SRC-VISIBLE",
              f"test -e {sys.prefix}/pyvenv.cfg && echo VENV-VISIBLE"]
    probe = "import numpy, agent.harness.child; print(numpy.__file__); print(agent.harness.child.__file__)"
    outcome = run_in(box, "; ".join(checks) + f"; {PYTHON} -c '{probe}'")
    assert outcome.ok, outcome.output
    assert outcome.output.split() == ["/opt/hipjudge/site/numpy/__init__.py",
                                      "/opt/hipjudge/agent/harness/child.py"], outcome.output


def test_the_child_starts_without_site_and_imports_only_what_it_needs(box):
    """The child starts once per phase of every job: `site` would run the host interpreter's .pth
    files in it, and json, dataclasses and pathlib were most of its start (agent.harness.wire)."""
    flags = " ".join(sandbox().python_flags)
    probe = ("import sys, agent.harness.child; "
             "heavy = {'site', 'json', 'dataclasses', 'pathlib', 'agent.harness.channel'}; "
             "print(sys.flags.no_site, sorted(heavy & set(sys.modules)))")
    outcome = run_in(box, f'{PYTHON} {flags} -c "{probe}"')
    assert outcome.ok, outcome.output
    assert outcome.output.strip() == "1 []", outcome.output


def test_the_agent_copy_is_content_addressed_read_only_and_outside_the_repository():
    copy = agent_copy()
    assert REPO not in copy.parents
    assert (copy / "harness" / "child.py").read_bytes() == (AGENT_PACKAGE / "harness" / "child.py").read_bytes()
    assert not os.access(copy / "harness" / "child.py", os.W_OK) or os.geteuid() == 0
    assert (copy / "harness" / "child.py").stat().st_mode & 0o222 == 0
    assert agent_copy() == copy


def test_a_platform_tree_inside_a_bound_tree_is_masked(tmp_path, box, monkeypatch):
    # A checkout under a tree the sandbox must bind (the interpreter's, here): what lies beside
    # the checkout stays visible, the checkout itself (var/ with the secret key) does not.
    tree = tmp_path / "python-tree"
    checkout = tree / "checkout"
    (checkout / "var").mkdir(parents=True)
    (checkout / "var" / "secret_key").write_text("platform secret\n")
    (tree / "beside.txt").write_text("beside\n")
    binary, trees = bwrap_module.interpreter_paths()
    monkeypatch.setattr(bwrap_module, "interpreter_paths", lambda: (binary, [*trees, str(tree)]))
    monkeypatch.setattr(bwrap_module, "platform_trees", lambda: [checkout])
    outcome = run_in(box, f"cat {tree}/beside.txt; cat {checkout}/var/secret_key 2>&1 || echo masked;"
                     f"ls -A {checkout} | wc -l")
    assert outcome.output.split("\n")[:2] == ["beside", f"cat: {checkout}/var/secret_key: No such file or directory"]
    assert "masked" in outcome.output
    assert "platform secret" not in outcome.output


UNSHARE_PROBE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for name, call in (("userns", lambda: libc.unshare(0x10000000)), ("netns", lambda: libc.unshare(0x40000000)),
                   ("mount", lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
                   ("sethostname", lambda: libc.sethostname(b"x", 1))):
    print(name, call(), os.strerror(ctypes.get_errno()))
"""


@pytest.mark.parametrize("threads_only", [False, True], ids=["compiler", "kernel"])
def test_no_namespace_mount_or_hostname_call_succeeds_in_the_sandbox(box, threads_only):
    (box / "probe.py").write_text(UNSHARE_PROBE)
    outcome = sandbox().spawn([sys.executable, "/box/probe.py"], box=box,
                              limits=replace(LIMITS, threads_only=threads_only)).wait()
    lines = outcome.output.split("\n")[:4]
    assert [line.split()[:2] for line in lines] == [[n, "-1"] for n in ("userns", "netns", "mount", "sethostname")]
    assert all("Operation not permitted" in line for line in lines), outcome.output
    # The unshare(1) tool (a new process, so only for the compiler's filter) is refused too.
    if not threads_only:
        tool = run_in(box, "unshare -U true 2>&1; echo rc=$?")
        assert tool.output.strip().endswith("rc=1"), tool.output


SOCKET_PROBE = """
import socket
for name in ("AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_PACKET", "AF_ALG"):
    try:
        socket.socket(getattr(socket, name), socket.SOCK_DGRAM if name != "AF_ALG" else socket.SOCK_SEQPACKET).close()
        print(name, "opened")
    except OSError as exc:
        print(name, exc.errno)
for name in ("AF_UNIX", "AF_INET"):
    try:
        [s.close() for s in socket.socketpair(getattr(socket, name))]
        print("pair", name, "opened")
    except OSError as exc:
        print("pair", name, exc.errno)
"""


@pytest.mark.parametrize("threads_only", [False, True], ids=["compiler", "kernel"])
def test_only_unix_sockets_can_be_made_in_the_sandbox(box, threads_only):
    """vsock is not namespaced (it reaches the VM's own ports and the hypervisor), netlink and the
    rest are kernel surface: every sandboxed program gets AF_UNIX and nothing else."""
    import errno

    (box / "probe.py").write_text(SOCKET_PROBE)
    outcome = sandbox().spawn([sys.executable, "/box/probe.py"], box=box,
                              limits=replace(LIMITS, threads_only=threads_only)).wait()
    refused = str(errno.EAFNOSUPPORT)
    assert outcome.output.split("\n")[:9] == [
        "AF_UNIX opened", *(f"{n} {refused}" for n in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_PACKET",
                                                        "AF_ALG")), "pair AF_UNIX opened", f"pair AF_INET {refused}"]


def test_stdout_is_a_pipe_the_parent_drains_with_a_cap_not_a_host_file(box):
    """A host file would let the program take disk past RLIMIT_FSIZE (fallocate with KEEP_SIZE),
    chmod it or read it back. A pipe allows none of it, and the parent stops reading at the cap."""
    script = ("import errno, os, stat\n"
              "fifo = stat.S_ISFIFO(os.fstat(1).st_mode)\n"
              "try:\n    os.posix_fallocate(1, 0, 1 << 30); refused = False\n"
              "except OSError:\n    refused = True\n"
              "block, written, stopped = b'x' * (1 << 20), 0, False\n"
              "try:\n    for _ in range(64):\n        written += os.write(1, block)\n"
              "except OSError as exc:\n    stopped = exc.errno == errno.EPIPE\n"
              "os._exit(fifo + 2 * refused + 4 * stopped + 8 * (written >> 20 == 8))\n")
    (box / "probe.py").write_text(script)
    outcome = sandbox().spawn([sys.executable, "/box/probe.py"], box=box,
                              limits=replace(LIMITS, file_bytes=8 * MIB, output_bytes=4096)).wait()
    # a pipe; fallocate refused; writes failed with EPIPE once the judge had read 8 MiB, the cap
    assert outcome.returncode == 15, outcome
    assert outcome.output_overflowed, outcome
    assert "earlier bytes of output cut" in outcome.output
    assert len(outcome.output) < 4096 + 100
    assert not list(box.parent.glob("*.log"))  # no log file beside the box


@needs_cgroups
def test_the_memory_cap_holds_for_the_process_and_what_it_writes_to_tmpfs_and_memfds(box):
    limits = replace(LIMITS, memory_bytes=None, ram_bytes=96 * MIB, tmp_bytes=1024 * MIB)
    allocate = run_in(box, f"{PYTHON} -c 'b = bytearray(512 << 20); print(\"ALLOCATED\")'", limits)
    assert "ALLOCATED" not in allocate.output, allocate
    assert allocate.oom_killed, allocate
    fill = run_in(box, "dd if=/dev/zero of=/tmp/fill bs=1M count=512 2>/dev/null; echo FILLED", limits)
    assert fill.oom_killed, fill
    memfds = "import os\nfor i in range(64):\n    os.write(os.memfd_create(str(i)), bytes(8 << 20))\nprint('FILLED')"
    (box / "memfds.py").write_text(memfds)
    memfd = run_in(box, f"{PYTHON} /box/memfds.py", limits)
    assert "FILLED" not in memfd.output, memfd
    assert memfd.oom_killed, memfd


@needs_cgroups
def test_the_pids_cap_binds_root_and_nothing_outlives_the_sandbox(box):
    outcome = run_in(box, "i=0; while [ $i -lt 200 ]; do (setsid sleep 600 &) 2>/dev/null; i=$((i+1)); done;"
                     "echo started; sleep 600", replace(LIMITS, wall_s=3, nproc=16))
    assert outcome.timed_out, outcome
    assert outcome.pids_refused, outcome
    assert not wait_until_no_process_mentions(str(box))  # setsid took them out of the process group


@pytest.mark.slow  # health_info builds the emulator's runtime first
def test_health_says_what_holds_the_memory_and_pids_caps(tmp_path):
    from agent.config import build_config, health_info

    config = build_config(workdir=tmp_path / "agent", device="host", allow_insecure=True)
    config.sandbox = sandbox()
    limits = health_info(config)["limits"]
    manager = cgroup_manager()
    if manager.usable:
        assert limits == {"memory": f"cgroup v{manager.version}", "pids": f"cgroup v{manager.version}"}
    else:
        assert limits["memory"].startswith("rlimits")
        assert manager.why_not in limits["pids"]


# ---- the sandbox's process filter ----------------------------------------------------------------

def test_the_no_new_processes_filter_is_a_whole_bpf_program_for_known_machines():
    for machine in ("x86_64", "aarch64"):
        program = no_new_processes_filter(machine)
        assert program is not None
        assert len(program) % 8 == 0
        assert 8 * 8 <= len(program) <= 64 * 8
    assert no_new_processes_filter("riscv64") is None  # unknown: rely on RLIMIT_NPROC alone

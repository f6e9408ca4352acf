"""The sandbox's mount layout, checked by running real programs under bubblewrap."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import agent.sandbox as sandbox_module
from agent.limits import MIB, ProcessLimits
from agent.sandbox import BwrapSandbox, detect_sandbox

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

LIMITS = ProcessLimits(wall_s=10, cpu_s=10, memory_bytes=1024 * MIB, file_bytes=16 * MIB, nproc=16,
                       output_bytes=4096)


def run(argv: list[str], box: Path) -> str:
    sandbox = detect_sandbox(preferred="bwrap")
    assert isinstance(sandbox, BwrapSandbox)
    outcome = sandbox.spawn(argv, box=box, limits=LIMITS).wait()
    assert outcome.returncode == 0, outcome.output
    return outcome.output


def test_a_python_tree_under_tmp_stays_visible_above_the_private_tmp(tmp_path, monkeypatch):
    # A clean clone under /tmp (CI may put it anywhere) has its .venv there: the private /tmp of the
    # sandbox must not hide it.
    assert str(tmp_path).startswith("/tmp/")
    tree = tmp_path / "checkout" / ".venv"
    tree.mkdir(parents=True)
    (tree / "marker.txt").write_text("venv is here\n")
    monkeypatch.setattr(sandbox_module, "_python_trees", lambda: [str(tree)])
    box = tmp_path / "job" / "box"
    box.mkdir(parents=True)
    assert run(["/bin/cat", str(tree / "marker.txt")], box) == "venv is here\n"


def test_the_child_gets_a_private_writable_tmp_and_the_box(tmp_path):
    box = tmp_path / "job" / "box"
    box.mkdir(parents=True)
    (box / "input.txt").write_text("in the box\n")
    (tmp_path / "outside.txt").write_text("host file\n")
    probe = Path("/tmp") / f"hj-sandbox-probe-{tmp_path.name}"
    output = run(["/bin/sh", "-c", f"cat /box/input.txt; touch {probe} && echo writable; "
                  f"test -e {tmp_path}/outside.txt && echo LEAK || echo hidden"], box)
    assert output.split("\n")[:3] == ["in the box", "writable", "hidden"]
    assert not probe.exists()  # what the child wrote to its /tmp never reaches the host's

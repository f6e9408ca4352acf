"""Nothing outside the box changes, and no process of a job survives it, with the agent run as the
platform runs it: `python -m agent run` (one job per process) and `python -m agent serve` (one
long-lived agent, jobs over HTTP). The attacks are the corpus's planted symlinks (a canary beside
the workdir, a SQLite database where `make run` keeps var/db.sqlite3, a file by absolute path), the
hanging FIFO and never-returning call with a result line nested past the recursion limit, files planted
for a later phase, and a box locked with chmod 000. Afterwards the canaries, the database (file
and row), and the agent's own files are as they were, no process names the workdir, and no job
folder is left.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.agent.conftest import ROOT, wait_until_no_process_mentions
from tests.agent.test_hostile import CORPUS, agent_files_digest
from tests.agent.test_served_agent import ServedAgent, descendants
from tests.agent.test_server import call, job_request, wait_for_result

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

ATTACKS = [  # (corpus file, mode, limits for the served agent, the status it must get)
    ("h1_symlink_spec.cpp", "benchmark", {"case_budget_s": 0.2}, "ACCEPTED"),
    ("h1_symlink_verified.cpp", "benchmark", {"case_budget_s": 0.2}, "ACCEPTED"),
    ("plant_for_later_phase.cpp", "benchmark", {"case_budget_s": 0.2}, "ACCEPTED"),
    ("chmod_000_box.cpp", "check", {}, "CHECKED"),
    ("h2_results_fifo.cpp", "check", {}, "CHECKED"),  # the default limit: 3 s bound a loaded machine
    ("h2_deep_json_orphan.cpp", "check", {"check_s": 3}, "TIME_LIMIT_EXCEEDED"),
]
CLI_ATTACKS = ATTACKS[:4]  # `agent run` has no limits flags: the never-ending call would take 30 s


class Outside:
    """What lies outside every box of an agent whose workdir is `workdir`."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.host_dir = workdir.parent / "outside"
        self.host_dir.mkdir(parents=True)
        (workdir / "var").mkdir(parents=True)
        self.database = workdir / "var" / "db.sqlite3"
        with sqlite3.connect(self.database) as db:
            db.execute("CREATE TABLE users (name TEXT)")
            db.execute("INSERT INTO users VALUES ('admin')")
        self.files = {workdir / "hj-canary": b"canary beside the boxes\n",
                      self.host_dir / "hj-canary": b"canary by absolute path\n"}
        for path, content in self.files.items():
            path.write_bytes(content)
        self.files[self.database] = self.database.read_bytes()
        self.agent_digest = agent_files_digest()

    def source(self, name: str) -> str:
        return (CORPUS / name).read_text().replace("@CANARY@", str(self.host_dir / "hj-canary")).replace(
            "@HOST_DIR@", str(self.host_dir))

    def assert_untouched(self) -> None:
        for path, content in self.files.items():
            assert path.read_bytes() == content, f"{path} changed"
        with sqlite3.connect(self.database) as db:
            assert db.execute("SELECT name FROM users").fetchall() == [("admin",)]
        assert not (self.host_dir / "hj-canary2").exists()
        assert agent_files_digest() == self.agent_digest, "the agent's own files changed"
        assert not wait_until_no_process_mentions(str(self.workdir))
        assert not list((self.workdir / "jobs").iterdir()), "a job folder was left behind"


def test_agent_run_contains_every_attack(tmp_path: Path) -> None:
    outside = Outside(tmp_path / "work")
    for name, mode, _, status in CLI_ATTACKS:
        path = tmp_path / name
        path.write_text(outside.source(name))
        result = subprocess.run([sys.executable, "-m", "agent", "run", "--workdir", str(outside.workdir),
                                 "--problem", "vector-add", "--mode", mode, str(path)],
                                cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert f"Result: {status}" in result.stdout, result.stdout + result.stderr
    outside.assert_untouched()


def test_agent_serve_contains_every_attack_and_keeps_serving(tmp_path: Path) -> None:
    outside = Outside(tmp_path / "work")
    agent = ServedAgent(tmp_path)
    try:
        base = agent.wait_listening()
        for index, (name, mode, limits, status) in enumerate(ATTACKS):
            job_id = f"attack-{index}"
            request = job_request(job_id, source=outside.source(name), mode=mode, limits=limits)
            assert call(base, "POST", "/v1/jobs", request)[0] == 202
            result = wait_for_result(base, job_id, 200)[-1]["payload"]
            assert result["status"] == status, (name, result["reason"])
        deadline = time.monotonic() + 10
        while descendants(agent.process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not descendants(agent.process.pid), "a process of a job outlived it"
        assert call(base, "POST", "/v1/jobs", job_request("after-all"))[0] == 202
        assert wait_for_result(base, "after-all", 100)[-1]["payload"]["status"] == "CHECKED"
    finally:
        agent.stop()
    outside.assert_untouched()

"""The problem's shapes outside problem.yaml: the problem API and `hipjudge problem` give each test,
benchmark and ranked case with its sizes (flash-attention's S = 8192, H = 32) from the bundle."""

from __future__ import annotations

from typing import Any

import pytest

from cli.main import main
from tests.cli.inprocess import InProcessClient

pytestmark = pytest.mark.usefixtures("problems_loaded")

LLAMA3_8B = "llama3-8b-b1-s8192-h32-kv8-d128"


def test_the_problem_api_gives_every_case_with_its_sizes(api_as: Any, owner: Any) -> None:
    cases = api_as(owner).get("/api/v1/problems/flash-attention-fwd").json()["cases"]
    assert set(cases) == {"tests", "benchmarks", "ranked"}
    bench = {c["name"]: c for c in cases["benchmarks"]}
    assert bench[LLAMA3_8B] == {"name": LLAMA3_8B, "devices": ["gpu"],
                                "params": {"B": 1, "S": 8192, "H": 32, "Hkv": 8, "D": 128}}
    assert [c["name"] for c in cases["ranked"]][:1] == ["b1-s200-h2-kv1-d128"]
    assert cases["tests"][0]["params"] == {"B": 1, "S": 1, "H": 1, "Hkv": 1, "D": 64}
    assert {c["name"]: c["params"]["alpha"] for c in api_as(owner).get("/api/v1/problems/leaky-relu").json()[
        "cases"]["tests"]}  # scalar arguments too, as numbers


def test_hipjudge_problem_prints_the_cases(api_as: Any, owner: Any, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setattr("cli.main.Client", lambda server, token=None, **limits: InProcessClient(api_as(owner)))
    assert main(["--server", "http://testserver", "problem", "flash-attention-fwd"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if LLAMA3_8B in line)
    assert line.split()[0] == "benchmarks"
    assert "B=1, S=8192, H=32, Hkv=8, D=128" in line
    assert any(line.startswith("ranked") and "S=4096, H=64" in line for line in out.splitlines())

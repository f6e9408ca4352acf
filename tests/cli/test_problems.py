"""`hipjudge problems --tag --type --difficulty`: the filters go to the API and combine; each row
shows the problem's data types and how many users solved it; a bad filter is the server's 400. The
table fits the screen (it was 243 columns wide), and --json works after the command's name too."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cli.output import TERMINAL_WIDTH
from tests.cli.inprocess import run_cli as run
from tests.cli.terminal import Terminal
from tests.conftest import PROBLEMS
from tests.submissions.browse_data import solve

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def rows(text: str) -> dict[str, list[str]]:
    """The table's rows by slug, split on the column gaps (two spaces or more)."""
    lines = [line for line in text.splitlines() if line and not line.startswith("slug ")]
    return {line.split()[0]: [c for c in line.split("  ") if c.strip()] for line in lines if "  " in line}


def test_the_filters_combine_and_rows_say_types_and_solvers(owner: Any, other_user: Any, api_as: Any,
                                                             local_pool: Any, monkeypatch: Any, capsys: Any) -> None:
    solve(owner, "gemm-fp8-blockwise", pool=local_pool)
    solve(other_user, "gemm-fp8-blockwise", "CHECKED", pool=local_pool)
    api = api_as(owner)
    assert run(monkeypatch, api, "problems", "--tag", "gemm", "--type", "bfloat16", "--difficulty", "hard") == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:7] == ["slug", "title", "difficulty", "types", "solved", "your", "best"]
    table = rows(out)
    assert set(table) == {"gemm-fp8-blockwise", "gemm-fp8-blockwise-grouped", "linear-cross-entropy",
                          "moe-grouped-gemm"}
    row = [c.strip() for c in table["gemm-fp8-blockwise"]]
    assert "fp8_e4m3fnuz, float, bfloat16" in row
    assert row[row.index("fp8_e4m3fnuz, float, bfloat16") + 1] == "2"

    for argv in (["--json", "problems", "-t", "gemm"], ["problems", "-t", "gemm", "--json"]):
        assert run(monkeypatch, api, *argv, "--type", "int8") == 0
        listed = json.loads(capsys.readouterr().out)
        assert [(p["slug"], p["data types"], p["solved by"], "gemm" in p["tags"]) for p in listed] == [
            ("gemm-int8", "int8, int32", 0, True), ("gemm-w8a8-scaled", "int8, float, bfloat16", 0, True)]

    assert run(monkeypatch, api, "problems") == 0
    assert len(rows(capsys.readouterr().out)) > 30


def test_no_match_says_so_and_a_bad_filter_is_a_usage_error(owner: Any, api_as: Any, monkeypatch: Any,
                                                              capsys: Any) -> None:
    api = api_as(owner)
    assert run(monkeypatch, api, "problems", "--tag", "no-such-tag", "--difficulty", "easy") == 0
    assert "no problem matches --tag no-such-tag and --difficulty easy" in capsys.readouterr().out
    assert run(monkeypatch, api, "problems", "--type", "float*") == 2
    assert "type: " in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # argparse knows the difficulties
        run(monkeypatch, api, "problems", "--difficulty", "extreme")
    assert exited.value.code == 2


@pytest.mark.parametrize(("columns", "width"), [("80", 80), ("100", 100), ("", TERMINAL_WIDTH)])
def test_the_table_fits_the_terminal(columns: str, width: int, owner: Any, api_as: Any, monkeypatch: Any) -> None:
    """$COLUMNS, else the terminal's own width: columns left out, then long titles cut with …"""
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    monkeypatch.setenv("COLUMNS", columns)
    assert run(monkeypatch, api_as(owner), "problems") == 0
    lines = terminal.getvalue().splitlines()
    assert max(len(line) for line in lines) <= width
    assert len(lines) > 30
    assert any("…" in line for line in lines)
    assert all(line.split()[0] in {"slug"} | {p.name for p in PROBLEMS.iterdir()} for line in lines)


def test_piped_the_table_keeps_every_cell_whole(owner: Any, api_as: Any, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert run(monkeypatch, api_as(owner), "problems") == 0
    out = capsys.readouterr().out
    assert "…" not in out
    assert "MoE router, softmax and top-k (Mixtral, OLMoE, Qwen3, DeepSeek sizes)" in out

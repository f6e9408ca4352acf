"""`hipjudge problem`'s table of cases reads what a server sent as far as it is well formed: any other
shape leaves rows out, never an error (the table is extra to the problem's interface)."""

from __future__ import annotations

from typing import Any

import pytest

from cli.commands import _case_rows


def test_the_cases_of_a_kind_become_rows() -> None:
    problem = {"cases": {"tests": [{"name": "n=7", "devices": ["host", "gpu"], "params": {"n": 7}}]}}
    assert _case_rows(problem, "tests") == [["n=7", "host, gpu", "n=7"]]


@pytest.mark.parametrize("cases", [None, [], "x", 3, {"tests": None}, {"tests": "abc"}, {"tests": [1, None, "s"]},
                                   {"tests": [{"name": None, "devices": "gpu", "params": [1, 2]}]}])
def test_a_mistyped_answer_leaves_rows_out(cases: Any) -> None:
    rows = _case_rows({"cases": cases}, "tests")
    assert all(isinstance(cell, str) for row in rows for cell in row)
    assert len(rows) <= 1

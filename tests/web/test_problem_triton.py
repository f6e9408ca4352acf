"""A problem with a Triton template shows the Triton contract beside the other languages: its
launcher's signature, the contract's sentence, each parameter's Triton type, the Python starter."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def test_a_problem_with_a_triton_template_shows_its_contract(client_as: Any, owner: Any) -> None:
    page = client_as(owner).get("/problems/gemm-bf16/").content.decode()
    assert 'data-testid="triton-contract"' in page
    assert "<th>triton</th>" in page and "<code>*bf16</code>" in page
    assert "solution" in page and "codemirror/mode/python.js" in page
    assert "BLOCK_M" in page  # the starter, highlighted as Python


def test_a_problem_without_one_shows_no_triton(client_as: Any, owner: Any, problem_without_triton: str) -> None:
    page = client_as(owner).get(f"/problems/{problem_without_triton}/").content.decode()
    assert 'data-testid="triton-contract"' not in page
    assert "<th>triton</th>" not in page


def test_the_problem_api_lists_the_triton_signature_only_where_offered(api_as: Any, owner: Any,
                                                                     problem_without_triton: str) -> None:
    offered = api_as(owner).get("/api/v1/problems/vector-add").json()
    assert offered["signatures"]["triton"] == "def solution(a, b, c, n)"
    assert offered["parameters"][0]["c_types"]["triton"] == "fp32"
    assert "triton" not in api_as(owner).get(f"/api/v1/problems/{problem_without_triton}").json()["signatures"]

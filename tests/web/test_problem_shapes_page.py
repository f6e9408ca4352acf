"""The problem page shows the test, benchmark and ranked shapes (flash-attention's S = 8192, H = 32)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def test_the_problem_page_lists_every_case_with_its_sizes(client_as: Any, owner: Any) -> None:
    page = client_as(owner).get("/problems/flash-attention-fwd/").content.decode()
    assert 'id="shapes"' in page
    shapes = page[page.index('id="shapes"'):]
    for caption in ("Tests: checked", "Benchmarks: timed on public inputs", "Ranked: timed on secret inputs"):
        assert caption in shapes
    row = shapes[shapes.index("llama3-8b-b1-s8192-h32-kv8-d128"):]
    row = row[:row.index("</tr>")]
    assert "<code>S = 8192</code>" in row and "<code>H = 32</code>" in row and "gpu" in row

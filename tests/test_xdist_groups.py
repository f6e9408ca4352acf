"""The tests that share a costly fixture run in one pytest-xdist worker (tests/conftest.py's groups):
when the groups silently stop forming (pytest 9.2 with pytest-xdist 3.8), each worker compiles the
whole catalogue and starts its own servers, and make test takes minutes longer."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="module")
def shared_by_the_module() -> str:
    return "module-wide"


def test_a_test_with_a_module_fixture_runs_in_its_modules_group(shared_by_the_module: str, request: Any) -> None:
    module = request.node.nodeid.split("::", 1)[0]
    assert [m.args for m in request.node.iter_markers("xdist_group")] == [(module,)]
    if not getattr(request.config.option, "loadgroup", False):  # set in pytest-xdist's workers
        pytest.skip("not run under pytest-xdist --dist loadgroup: nothing groups the tests")
    # pytest-xdist's loadgroup scheduler groups by the suffix it adds to the node id in the worker.
    assert request.node.nodeid.endswith(f"@{module}"), f"{request.node.nodeid}: no group suffix, no grouping"

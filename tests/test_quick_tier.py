"""make test-quick (scripts/test-quick.sh) leaves out the users of the costly shared fixtures, however
they reach them, and keeps the rest: checked on a small suite collected with the script's own -m."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, SLOW_FIXTURES

pytest_plugins = ["pytester"]

CONFTEST = """
import pytest
from tests.conftest import pytest_itemcollected  # the hook that marks users of SLOW_FIXTURES

@pytest.fixture(scope="session")
def emu_runtime():
    return "a stand-in for the emulator's runtime"

@pytest.fixture
def through_another(emu_runtime):
    return emu_runtime
"""

TESTS = """
import pytest

def test_direct(emu_runtime): pass
def test_indirect(through_another): pass
def test_plain(): pass
@pytest.mark.integration
def test_live(): pass
"""


def quick_expression() -> str:
    found = re.search(r'^QUICK="([^"]+)"$', (ROOT / "scripts" / "test-quick.sh").read_text(), re.MULTILINE)
    assert found, "scripts/test-quick.sh sets no QUICK expression"
    return found.group(1)


def test_the_quick_tier_keeps_only_tests_without_costly_fixtures_or_live_servers(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "emu_runtime" in SLOW_FIXTURES
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # this project's plugins (Django, xdist) stay out
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_tier=TESTS)
    result = pytester.runpytest_inprocess("--collect-only", "-q", "-p", "no:cacheprovider", "-m", quick_expression())
    collected = sorted(line.split("::")[-1] for line in result.outlines if "::" in line)
    assert collected == ["test_plain"]

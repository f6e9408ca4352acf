"""Browser tests: Debian's Chromium driven by Playwright against the real stack (uvicorn serving
config.asgi, a `manage.py qcluster` worker, and the local pool's agent processes), reusing the
integration tests' process fixtures. Never downloads a browser: without /usr/bin/chromium (or
Playwright) every test here is skipped with the reason."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.integration.conftest import Stack, emulating_pool, judging_pool, stack  # noqa: F401 - fixtures used by name
from tests.support.stop_when_unused import StopWhenUnused

# Playwright's sync API keeps an asyncio loop on this thread; Django then refuses ORM calls made by
# the test itself (SynchronousOnlyOperation) although they are plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("HIPJUDGE_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-dev-shm-usage"]
TIMEOUT_MS = 20_000  # default for every Playwright action and expectation

pytestmark = pytest.mark.browser
BROWSER = StopWhenUnused("browser")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(BROWSER, "browser-stop-when-unused")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium when run as root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed in .venv (pip install -e '.[dev]')")
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=60_000)
    stopped: list[bool] = []

    def stop() -> None:
        if not stopped:
            stopped.append(True)
            browser.close()
            playwright.stop()

    # Playwright's sync API keeps an event loop running in this thread while it is up, and Django's test
    # client cannot call an async view (the event streams) from such a thread: stop it after the last
    # browser test of this process, not at the end of the session.
    BROWSER.started("browser", stop)
    try:
        yield browser
    finally:
        stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    context.set_default_navigation_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def site(stack: Stack, judging_pool: Any, problems_loaded: None) -> str:  # noqa: F811 - pytest fixture names
    """The whole platform running: returns the base URL."""
    stack.start_worker(workers=2)
    return stack.start_web()


def shot(page: Any, name: str, full_page: bool = True) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path

"""Fixtures of the browser suite: JupyterLab servers and a headless Debian Chromium.

Every test here carries `@pytest.mark.browser` (`make fast-test` deselects them) and skips,
with the reason, when /usr/bin/chromium or Playwright is missing
(`bash scripts/install_browser.sh` installs both).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from .lab import ROOT, SCREENSHOTS, author_server, make_lab_server, reset_lab

CHROMIUM = Path(os.environ.get("ATTNBOOK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ACTION_TIMEOUT_MS = 30_000
# A hard bound on the whole browser suite: once its tests have taken this many seconds in all
# (in this process), every remaining browser test fails at once (each test is bounded by its
# own timeout too). Only time inside browser tests counts: under pytest-xdist a worker also
# runs other tests between two browser tests, and those are not the browser suite's to pay.
SUITE_BUDGET_S = float(os.environ.get("ATTNBOOK_BROWSER_BUDGET", "1200"))
_suite_spent: list[float] = [0.0]


def student_notebooks() -> list[Path]:
    return sorted(
        p for p in ROOT.glob("notebooks/*/*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


def solution_notebooks() -> list[Path]:
    return sorted(
        p for p in ROOT.glob("solutions/*/*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


def missing_browser() -> str | None:
    """Why the browser suite cannot run here, or None."""
    if not CHROMIUM.exists():
        return (
            f"{CHROMIUM} is missing; run `bash scripts/install_browser.sh` "
            f"(apt-get install chromium)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return (
            "playwright is not installed in this environment; run `bash scripts/install_browser.sh`"
        )
    return None


@pytest.fixture(autouse=True)
def suite_budget():
    spent = _suite_spent[0]
    if spent > SUITE_BUDGET_S:
        pytest.fail(
            f"the browser suite has used {spent:.0f} s of its {SUITE_BUDGET_S:.0f} s "
            f"budget (ATTNBOOK_BROWSER_BUDGET); this test was not run"
        )
    began = time.monotonic()
    yield
    _suite_spent[0] += time.monotonic() - began


@pytest.fixture(scope="session")
def browser_ready() -> None:
    reason = missing_browser()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder a person opens after a run: this worker's (cleared when it starts)."""
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def browser(browser_ready):
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="attnbook-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1400, "height": 900},
            timeout=60_000,
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.browser_call_failed = report.failed


def _new_tab(browser):
    """A new tab of `browser` whose actions give up after ACTION_TIMEOUT_MS."""
    tab = browser.new_page()
    tab.set_default_timeout(ACTION_TIMEOUT_MS)
    return tab


def _shot_on_failure(tab, screenshots: Path, request) -> None:
    if getattr(request.node, "browser_call_failed", False):
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        try:
            tab.screenshot(path=str(screenshots / f"FAILED-{name}.png"), timeout=10_000)
        except Exception:  # a crashed page has nothing to show
            pass


@pytest.fixture
def page(browser, screenshots, request):
    """A new tab with bounded actions; a screenshot `FAILED-<test>.png` when the test fails."""
    tab = _new_tab(browser)
    try:
        yield tab
    finally:
        _shot_on_failure(tab, screenshots, request)
        tab.close()


@pytest.fixture(scope="session")
def _author_tab(browser):
    tab = _new_tab(browser)
    yield tab
    tab.close()


@pytest.fixture(scope="session")
def _student_tab(browser):
    tab = _new_tab(browser)
    yield tab
    tab.close()


@pytest.fixture
def author_page(_author_tab, author_lab, screenshots, request):
    """One JupyterLab tab of the author server, shared (loading JupyterLab costs seconds),
    cleaned before each test: dialogs dismissed, documents closed unsaved."""
    reset_lab(_author_tab, author_lab)
    yield _author_tab
    _shot_on_failure(_author_tab, screenshots, request)


@pytest.fixture
def student_page(_student_tab, make_lab, screenshots, request):
    """The same for the `make lab` server."""
    reset_lab(_student_tab, make_lab)
    yield _student_tab
    _shot_on_failure(_student_tab, screenshots, request)


def _serving(server):
    """A fixture's body for a LabServer: started, yielded, stopped when the fixture ends."""
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def make_lab(browser_ready):
    """The README's first command (`make lab`) serving notebooks/."""
    yield from _serving(make_lab_server())


@pytest.fixture(scope="session")
def author_lab(browser_ready):
    """JupyterLab on the repository root with the workbook's nbgrader configuration."""
    yield from _serving(author_server())


@pytest.fixture
def stop_kernels(request):
    """Shut down the kernels of the servers a test used, once it ends."""
    servers = []
    yield servers.append
    for server in servers:
        server.shutdown_kernels()

"""Fixtures of the browser suite: JupyterLab servers and a headless Debian Chromium.

Every test here carries `@pytest.mark.browser` (`make fast-test` deselects them) and skips,
with the reason, when /usr/bin/chromium or Playwright is missing
(`bash scripts/install_browser.sh` installs both).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from .lab import ROOT, SCREENSHOTS, author_server, make_lab_server

CHROMIUM = Path(os.environ.get("ATTNBOOK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
ACTION_TIMEOUT_MS = 30_000


def student_notebooks() -> list[Path]:
    return sorted(p for p in ROOT.glob("notebooks/*/*.ipynb") if ".ipynb_checkpoints" not in
                  p.parts)


def solution_notebooks() -> list[Path]:
    return sorted(p for p in ROOT.glob("solutions/*/*.ipynb") if ".ipynb_checkpoints" not in
                  p.parts)


def missing_browser() -> str | None:
    """Why the browser suite cannot run here, or None."""
    if not CHROMIUM.exists():
        return (f"{CHROMIUM} is missing; run `bash scripts/install_browser.sh` "
                f"(apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return ("playwright is not installed in this environment; run "
                "`bash scripts/install_browser.sh`")
    return None


@pytest.fixture(scope="session")
def browser_ready() -> None:
    reason = missing_browser()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder a person opens after a run (cleared at the start of each run)."""
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def browser(browser_ready):
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="attnbook-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1400, "height": 900}, timeout=60_000)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser):
    """A new tab with bounded actions; console errors are kept for the failure message."""
    tab = browser.new_page()
    tab.set_default_timeout(ACTION_TIMEOUT_MS)
    tab.console_errors = []
    tab.on("console", lambda m: m.type == "error" and tab.console_errors.append(m.text))
    try:
        yield tab
    finally:
        tab.close()


@pytest.fixture(scope="session")
def make_lab(browser_ready):
    """The README's first command (`make lab`) serving notebooks/."""
    server = make_lab_server().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def author_lab(browser_ready):
    """JupyterLab on the repository root with the workbook's nbgrader configuration."""
    server = author_server().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def stop_kernels(request):
    """Shut down the kernels of the servers a test used, once it ends."""
    servers = []
    yield servers.append
    for server in servers:
        server.shutdown_kernels()

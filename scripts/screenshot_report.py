"""assets/class_report.png: the class report of the sample class, as Chromium shows it.

Grades the sample class (`python -m grader sample`), writes its report with `--anonymous`
(the picture names no one), opens it in headless Chromium (Playwright, as the browser tests
use it: `bash scripts/install_browser.sh`) and saves the top of the page.

    .venv/bin/python scripts/screenshot_report.py [--out assets/class_report.png]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NB = "01_attention_scores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "assets" / "class_report.png"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="report-shot-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "autograder")}
    for command in (
        ["sample", "--out", str(work), "--workers", "2"],
        ["report", "-a", NB, "--anonymous", "--work", str(work / "work")],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "grader", *command],
            cwd=ROOT / "autograder",
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            sys.exit(f"grader {command[0]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    page_path = work / "work" / "reports" / NB / "class_report.html"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = os.environ.get("ATTNBOOK_CHROMIUM", "/usr/bin/chromium")  # as the tests
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1000, "height": 1400})
        page.goto(page_path.as_uri(), wait_until="load")
        page.screenshot(path=args.out, full_page=False)
        browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

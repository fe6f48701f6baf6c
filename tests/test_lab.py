"""The README's first command (`make lab`) serves JupyterLab on the learner's copy of
notebooks/ (work/; here a scratch folder given as WORK)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from conftest import NOTEBOOKS, ROOT


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


@contextlib.contextmanager
def serve(target: str, *make_args: str, log=None, env: dict | None = None):
    """Run `make <target>` on a free port; yield (base url, token). `log`: an open file
    for the server's output (discarded otherwise); `env`: variables set for it."""
    port, token = free_port(), "attnbook-test"
    args = f"--no-browser --port={port} --ServerApp.ip=127.0.0.1 --IdentityProvider.token={token}"
    server = subprocess.Popen(
        ["make", target, f"LAB_ARGS={args}", *make_args],
        cwd=ROOT,
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, page = fetch(f"http://127.0.0.1:{port}/lab?token={token}")
                break
            except OSError:
                assert server.poll() is None, f"make {target} exited before serving"
                assert time.monotonic() < deadline, "JupyterLab did not answer within 120 s"
                time.sleep(1)
        assert status == 200 and "JupyterLab" in page
        yield f"http://127.0.0.1:{port}", token
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


@pytest.mark.slow
def test_make_lab_serves_jupyterlab_with_the_notebooks(tmp_path):
    work = tmp_path / "work"
    log = (tmp_path / "lab.log").open("w")
    with log, serve("lab", f"WORK={work}", log=log) as (base, token):
        port = base.rsplit(":", 1)[1]
        _, listing = fetch(f"http://127.0.0.1:{port}/api/contents?token={token}")
        served = {item["name"] for item in json.loads(listing)["content"]}
        expected = {p.name for p in NOTEBOOKS.iterdir() if p.is_dir()}
        assert expected and expected <= served, f"served {served}, expected {expected}"
        assert {p.name for p in work.iterdir() if p.is_dir()} == expected | {"solutions"}
        _, listing = fetch(f"http://127.0.0.1:{port}/api/contents/solutions?token={token}")
        shown = {item["name"] for item in json.loads(listing)["content"]}
        assert expected <= shown, f"the lab's solutions/ shows {shown}"  # reachable, read-only
        one = next(iter(sorted(expected)))
        copy = work / "solutions" / one / f"{one}.ipynb"
        assert copy.read_bytes() == (ROOT / "solutions" / one / f"{one}.ipynb").read_bytes()
        assert not copy.is_symlink() and copy.stat().st_mode & 0o222 == 0  # a copy, read-only
        if os.geteuid() != 0:  # root writes a read-only file all the same
            _, model = fetch(
                f"http://127.0.0.1:{port}/api/contents/solutions/{one}/{one}.ipynb"
                f"?token={token}&content=0"
            )
            assert json.loads(model)["writable"] is False
        _, extensions = fetch(f"http://127.0.0.1:{port}/lab/api/extensions?token={token}")
        names = {ext["name"] for ext in json.loads(extensions)}
        assert "jupyter-widgets-jupyterlab-manager" in names, names
        assert "jupyter-nbgrader" in names, names  # its Validate button
        # a learner's lab: no instructor panel, no nbgrader menu, no news pop-up
        _, page = fetch(f"http://127.0.0.1:{port}/lab?token={token}")
        config = json.loads(
            page.split('id="jupyter-config-data" type="application/json">')[1].split("</script>")[0]
        )
        off = set(config.get("disabledExtensions") or [])
        for plugin in ("menu", "formgrader", "create-assignment", "course-list"):
            assert f"@jupyter/nbgrader:{plugin}" in off, off
        assert "@jupyterlab/apputils-extension:announcements" in off, off
        assert "@jupyter/nbgrader:validate-assignment" not in off
        try:
            fetch(f"http://127.0.0.1:{port}/formgrader?token={token}")
            raise AssertionError("the learner's lab serves the formgrader")
        except urllib.error.HTTPError as err:
            assert err.code == 404
        # a kernel talks to the server over local sockets, not TCP: no warning about it
        start = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/kernels?token={token}", data=b"{}", method="POST"
        )
        with urllib.request.urlopen(start, timeout=60) as response:
            kernel = json.loads(response.read())
        deadline = time.monotonic() + 60
        while "Kernel started" not in (tmp_path / "lab.log").read_text():
            assert time.monotonic() < deadline, "the kernel did not start within 60 s"
            time.sleep(1)
        time.sleep(3)  # its start-up lines reach the log
        urllib.request.urlopen(
            urllib.request.Request(
                f"http://127.0.0.1:{port}/api/kernels/{kernel['id']}?token={token}",
                method="DELETE",
            ),
            timeout=30,
        )
    text = (tmp_path / "lab.log").read_text()
    assert "Kernel started" in text and "without encryption" not in text, text[-3000:]


@pytest.mark.slow
def test_make_formgrader_lists_the_course_assignments(tmp_path):
    """On the LMS route (no exchange folder) the formgrader lists every notebook, and its log
    says once that there is no exchange, with no CRITICAL line per request."""
    missing = tmp_path / "no-exchange"
    with (tmp_path / "formgrader.log").open("w") as log:
        exchange = {"ATTNBOOK_EXCHANGE": str(missing)}
        with serve("formgrader", log=log, env=exchange) as (base, token):
            for _ in range(3):  # each request lists the exchange
                _, listing = fetch(f"{base}/formgrader/api/assignments?token={token}")
            names = {item["name"] for item in json.loads(listing)}
            expected = {p.name for p in NOTEBOOKS.iterdir() if p.is_dir()}
            assert expected <= names, f"formgrader lists {names}, expected {expected}"
    text = (tmp_path / "formgrader.log").read_text()
    assert "CRITICAL" not in text and "Unwritable directory" not in text, text[-3000:]
    assert text.count("No nbgrader exchange at") == 1, text[-3000:]
    assert not missing.exists()

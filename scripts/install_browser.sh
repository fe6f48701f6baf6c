#!/usr/bin/env bash
# Install what the browser suite (tests/browser/, marker `browser`) needs, idempotently:
#   - Debian's Chromium at /usr/bin/chromium (apt-get, only when it is missing);
#   - Playwright for Python, pinned, into the project's .venv (never `playwright install`:
#     the tests drive the system Chromium, no browser is downloaded).
# Run it from anywhere; it sets up .venv first (`make setup`) when that is missing.
# Without root, apt-get or the registries it says so on stderr, exits 0, and the suite
# skips with the reason (shown by `pytest -ra`).
set -euo pipefail
cd "$(dirname "$0")/.."

PLAYWRIGHT_VERSION="${PLAYWRIGHT_VERSION:-1.65.2}"
VENV="${VENV:-.venv}"
CHROMIUM="${ATTNBOOK_CHROMIUM:-/usr/bin/chromium}"   # the path the tests use

if [ ! -x "$CHROMIUM" ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "install_browser: installing Debian's chromium"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq >/dev/null \
            && apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
            || echo "install_browser: apt-get could not install chromium" >&2
    elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 \
            && sudo -n true 2>/dev/null; then
        echo "install_browser: installing Debian's chromium (sudo)"
        { sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
            && sudo -n env DEBIAN_FRONTEND=noninteractive \
               apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
            || echo "install_browser: apt-get could not install chromium" >&2
    else
        echo "install_browser: $CHROMIUM is missing and cannot be installed here" \
             "(needs apt-get as root); the browser tests will skip" >&2
    fi
    [ -x "$CHROMIUM" ] || echo "install_browser: still no $CHROMIUM;" \
        "the browser tests will skip" >&2
fi

[ -x "$VENV/bin/python" ] || make setup
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; \
sys.exit(m.version('playwright') != '$PLAYWRIGHT_VERSION')" 2>/dev/null; then
    echo "install_browser: installing playwright==$PLAYWRIGHT_VERSION into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "playwright==$PLAYWRIGHT_VERSION" \
        || echo "install_browser: pip could not install playwright; the browser tests" \
                "will skip" >&2
fi

if [ -x "$CHROMIUM" ]; then
    echo "install_browser: ready ($("$CHROMIUM" --version 2>/dev/null | head -n1)," \
         "playwright $PLAYWRIGHT_VERSION)"
fi

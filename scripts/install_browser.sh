#!/usr/bin/env bash
# Install what the browser suite (tests/browser/, marker `browser`) needs, idempotently:
#   - Debian's Chromium at /usr/bin/chromium (apt-get, only when it is missing);
#   - Playwright for Python, pinned, into the project's .venv (never `playwright install`:
#     the tests drive the system Chromium, no browser is downloaded).
# Run it from anywhere; it sets up .venv first (`make setup`) when that is missing.
# Without root or apt-get it says so and leaves the suite to skip with a clear reason.
set -euo pipefail
cd "$(dirname "$0")/.."

PLAYWRIGHT_VERSION="${PLAYWRIGHT_VERSION:-1.65.2}"
VENV="${VENV:-.venv}"

if [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "install_browser: installing Debian's chromium"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends chromium >/dev/null
    elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 \
            && sudo -n true 2>/dev/null; then
        echo "install_browser: installing Debian's chromium (sudo)"
        sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        sudo -n env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends chromium >/dev/null
    else
        echo "install_browser: /usr/bin/chromium is missing and cannot be installed here" \
             "(needs apt-get as root); the browser tests will skip" >&2
    fi
fi

[ -x "$VENV/bin/python" ] || make setup
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; \
sys.exit(m.version('playwright') != '$PLAYWRIGHT_VERSION')" 2>/dev/null; then
    echo "install_browser: installing playwright==$PLAYWRIGHT_VERSION into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "playwright==$PLAYWRIGHT_VERSION"
fi

if [ -x /usr/bin/chromium ]; then
    echo "install_browser: ready ($(/usr/bin/chromium --version 2>/dev/null | head -n1)," \
         "playwright $PLAYWRIGHT_VERSION)"
fi

#!/usr/bin/env bash
# System tools the TA grader and its tests need that pip cannot install: bubblewrap (the
# sandbox), setpriv (util-linux, drops root inside it) and PostgreSQL (the shared-gradebook
# test). Idempotent and quiet: does nothing when they are present; needs root and apt-get
# otherwise. Exits 1, saying what is missing and what that means, when it could not install
# them: the grader refuses to grade without a sandbox, and the tests that need a missing tool
# skip, saying why (`make test` goes on; `make test-deps` and CI stop).
set -euo pipefail

missing_now() {
    missing=()
    command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
    command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
}

refuse() {
    echo "install_system_deps: could not install ${missing[*]} ($1): install them as root" \
        "(apt-get install ${missing[*]}); until then the grader refuses to grade without" \
        "bubblewrap and setpriv, and the tests that need them skip, saying why" >&2
    exit 1
}

missing_now
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    refuse "not root"
fi
if ! command -v apt-get >/dev/null 2>&1; then
    refuse "no apt-get"
fi
export DEBIAN_FRONTEND=noninteractive
wanted=("${missing[@]}")
if ! { timeout 600 apt-get update -qq >/dev/null \
        && timeout 900 apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null; }; then
    missing_now
    refuse "apt-get failed"
fi
missing_now
[ ${#missing[@]} -eq 0 ] || refuse "apt-get installed them, but they are still not found"
echo "install_system_deps: installed ${wanted[*]}"

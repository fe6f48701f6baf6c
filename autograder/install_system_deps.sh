#!/usr/bin/env bash
# System tools the TA grader and its tests need that pip cannot install: bubblewrap (the
# sandbox), setpriv (util-linux, drops root inside it) and PostgreSQL (the shared-gradebook
# test). Idempotent and quiet: does nothing when they are present; needs root and apt-get
# otherwise, and without them only says what is missing (the tests then skip, saying why).
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install_system_deps: please install ${missing[*]} (needs root and apt-get)" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# A failed install must not stop the test run: the tests that need these tools skip, saying why.
if timeout 600 apt-get update -qq >/dev/null \
        && timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    echo "install_system_deps: installed ${missing[*]}"
else
    echo "install_system_deps: could not install ${missing[*]}; their tests will skip" >&2
fi

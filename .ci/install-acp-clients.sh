#!/usr/bin/env bash
# Installs two ACP clients nobody here wrote, for tests/acp_clients/test_toad.py and test_acpc.py:
#   Toad 0.6.20 (PyPI batrachian-toad, a Textual terminal UI) in a Python 3.13 venv: Toad asks
#     for Python >= 3.14, which this machine lacks, so it goes in with --ignore-requires-python
#     and a start-up hook (shared/clients/toad_py313_shim.py, beside the clone as ../shared)
#     that stands in for the three 3.14 features it uses; no Toad file is changed.
#   tmux (Debian), which the Toad tests drive.
#   acpc 0.1.0 (PyPI, a thin CLI client; Python >= 3.12) in a 3.13 venv of its own with agent-client-protocol 0.8.1
#     (acpc imports a name that 0.9.0 renamed).
# Idempotent (a stamp per venv holds the pins). Each venv lives under
# $AGENT_LSP_TOOLS (default ~/.cache/agent-lsp-tools): toad-venv/, acpc-venv/.
#
# Environment:
#   AGENT_LSP_TOOLS  where the venvs go
#   TOAD_PYTHON      a Python 3.13 for Toad (default: pyenv's 3.13.0, then python3.13 on PATH)
#   (acpc needs Python >= 3.12: it gets the same 3.13)
#   FORCE=1          reinstall both
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"  # deb_ensure
cd "$(dirname "$0")/.."

TOAD_PINS=("batrachian-toad==0.6.20")
ACPC_PINS=("acpc==0.1.0" "agent-client-protocol==0.8.1")
# shared/ lies beside the clone (CI: ../shared); for a git worktree, beside the main checkout
shim_path() {
  local common
  if [[ -n "${TOAD_SHIM:-}" ]]; then echo "$TOAD_SHIM"; return; fi
  common="$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
  for d in .. ${common:+"$(dirname "$(dirname "$common")")"}; do
    if [[ -f "$d/shared/clients/toad_py313_shim.py" ]]; then echo "$d/shared/clients/toad_py313_shim.py"; return; fi
  done
  echo "../shared/clients/toad_py313_shim.py"
}
SHIM="$(shim_path)"

TOOLS="${AGENT_LSP_TOOLS:-$HOME/.cache/agent-lsp-tools}"
FORCE="${FORCE:-0}"
mkdir -p "$TOOLS/logs"
TOOLS="$(cd "$TOOLS" && pwd)"
exec 9>"$TOOLS/.lock-acp-clients"
flock 9

fail() { echo "FAILED: $1; last lines of $2:" >&2; tail -n 40 "$2" >&2; exit 1; }
stamped() { [[ "$FORCE" != 1 && -f "$1/.stamp" && "$(cat "$1/.stamp")" == "$2" ]]; }

# ---- tmux (the Toad tests drive it in a tmux pane) -----------------------------
command -v tmux >/dev/null || deb_ensure "$TOOLS/logs/tmux.log" tmux

# ---- Toad --------------------------------------------------------------------
toad_python() {
  local p
  for p in "${TOAD_PYTHON:-}" /root/.pyenv/versions/3.13.0/bin/python "$(command -v python3.13 || true)"; do
    if [[ -n "$p" && -x "$p" ]] && "$p" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then
      echo "$p"; return 0
    fi
  done
  return 1
}
VENV="$TOOLS/toad-venv"
LOG="$TOOLS/logs/toad.log"
[[ -f "$SHIM" ]] || { echo "FAILED: Toad's 3.13 start-up hook is missing: $SHIM" >&2; exit 1; }
SHIM_SUM="$(sha256sum "$SHIM" | cut -c1-16)"
probe_toad() { "$VENV/bin/python" -c 'import toad_py313_shim, toad.acp.agent' 2>/dev/null; }
if stamped "$VENV" "${TOAD_PINS[*]} shim:$SHIM_SUM" && probe_toad; then
  echo "toad           ${TOAD_PINS[*]}  [$VENV/bin/toad] (already installed)"
else
  PY313="$(toad_python)" || { echo "FAILED: no Python 3.13 for Toad (set TOAD_PYTHON)" >&2; exit 1; }
  echo "toad: $PY313 -m venv; pip install --ignore-requires-python ${TOAD_PINS[*]}"
  rm -rf "$VENV"
  : >"$LOG"
  { "$PY313" -m venv "$VENV" &&
    "$VENV/bin/pip" install --disable-pip-version-check --no-input --ignore-requires-python "${TOAD_PINS[@]}"; } \
    >>"$LOG" 2>&1 || fail "installing ${TOAD_PINS[*]}" "$LOG"
  SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  cp "$SHIM" "$SITE/toad_py313_shim.py"
  echo "import toad_py313_shim" >"$SITE/toad_py313_shim.pth"
  probe_toad || fail "Toad does not import in $VENV with the shim" "$LOG"
  printf '%s' "${TOAD_PINS[*]} shim:$SHIM_SUM" >"$VENV/.stamp"
  echo "toad           ${TOAD_PINS[*]}  [$VENV/bin/toad]"
fi

# ---- acpc --------------------------------------------------------------------
VENV="$TOOLS/acpc-venv"
LOG="$TOOLS/logs/acpc.log"
probe_acpc() { "$VENV/bin/acpc" --help >/dev/null 2>&1; }
if stamped "$VENV" "${ACPC_PINS[*]}" && probe_acpc; then
  echo "acpc           ${ACPC_PINS[*]}  [$VENV/bin/acpc] (already installed)"
else
  PY313="$(toad_python)" || { echo "FAILED: no Python 3.13 for acpc (set TOAD_PYTHON)" >&2; exit 1; }
  echo "acpc: $PY313 -m venv; pip install ${ACPC_PINS[*]}"
  rm -rf "$VENV"
  : >"$LOG"
  { "$PY313" -m venv "$VENV" &&
    "$VENV/bin/pip" install --disable-pip-version-check --no-input "${ACPC_PINS[@]}"; } \
    >>"$LOG" 2>&1 || fail "installing ${ACPC_PINS[*]}" "$LOG"
  probe_acpc || fail "acpc does not start in $VENV" "$LOG"
  printf '%s' "${ACPC_PINS[*]}" >"$VENV/.stamp"
  echo "acpc           ${ACPC_PINS[*]}  [$VENV/bin/acpc]"
fi

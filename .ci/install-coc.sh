#!/usr/bin/env bash
# Installs what the coc.nvim tests (tests/editors/test_coc.py) drive:
#   Vim 9 with +job (Debian `vim`), tmux (the terminal the tests type into),
#   and coc.nvim 0.0.82 unpacked from the release archive in ../shared/clients/
#   (beside the clone; npm's `coc.nvim` holds only typings, so there is no registry copy).
# Neovim 0.12 and Node 20 come from .ci/install-editors.sh / the machine.
# Idempotent: a re-run only checks. Writes COC_RTP and VIM9 into $TOOLS/coc.env.
#
# Environment:
#   AGENT_LSP_TOOLS  where coc.nvim is unpacked (default ~/.cache/agent-lsp-tools)
#   COC_ARCHIVE      the archive (default <repo>/../shared/clients/coc.nvim-0.0.82.tar.gz)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"  # deb_ensure

COC_VERSION="0.0.82"
DEB_PACKAGES=(vim tmux)

REPO="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="${AGENT_LSP_TOOLS:-$HOME/.cache/agent-lsp-tools}"
# ../shared beside the clone (CI); in a git worktree, beside the main checkout
ARCHIVE="${COC_ARCHIVE:-}"
if [[ -z "$ARCHIVE" ]]; then
  for base in "$REPO" "$(dirname "$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo "$REPO/.git")")"; do
    ARCHIVE="$base/../shared/clients/coc.nvim-$COC_VERSION.tar.gz"
    [[ -f "$ARCHIVE" ]] && break
  done
fi
mkdir -p "$TOOLS"
TOOLS="$(cd "$TOOLS" && pwd)"
exec 9>"$TOOLS/.lock-coc"
flock 9
export DEBIAN_FRONTEND=noninteractive

deb_ensure "$TOOLS/logs/apt-coc.log" "${DEB_PACKAGES[@]}"
VIM9="$(command -v vim.basic || command -v vim)"
"$VIM9" --version | grep -q '+job' || { echo "coc: $VIM9 has no +job" >&2; exit 1; }
echo "vim            $("$VIM9" --version | sed -n 1p)"
echo "tmux           $(tmux -V)"
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)"
[[ "$node_major" =~ ^[0-9]+$ && "$node_major" -ge 16 ]] || { echo "coc: needs Node >= 16, found: $node_major" >&2; exit 1; }

DEST="$TOOLS/coc"
RTP="$DEST/coc.nvim-$COC_VERSION"
if [[ ! -f "$RTP/build/index.js" ]]; then
  [[ -f "$ARCHIVE" ]] || { echo "coc: archive not found: $ARCHIVE" >&2; exit 1; }
  echo "coc: unpacking $ARCHIVE"
  rm -rf "$DEST.tmp" && mkdir -p "$DEST.tmp"
  tar -xzf "$ARCHIVE" -C "$DEST.tmp"
  [[ -f "$DEST.tmp/coc.nvim-$COC_VERSION/build/index.js" ]] || { echo "coc: no build/index.js in $ARCHIVE" >&2; exit 1; }
  rm -rf "$DEST" && mv "$DEST.tmp" "$DEST"
fi
grep -q "\"version\": \"$COC_VERSION\"" "$RTP/package.json" || { echo "coc: $RTP is not $COC_VERSION" >&2; exit 1; }
echo "coc.nvim       $COC_VERSION  [$RTP]"
{
  echo "# written by .ci/install-coc.sh; source it"
  printf 'export COC_RTP=%q\n' "$RTP"
  printf 'export VIM9=%q\n' "$VIM9"
} >"$TOOLS/coc.env.tmp"
mv "$TOOLS/coc.env.tmp" "$TOOLS/coc.env"
echo "env            $TOOLS/coc.env"

#!/usr/bin/env bash
# Builds the VS Code extension from this checkout exactly as README.md tells a
# contributor to (npm ci && npm run package), then shows what the .vsix holds.
# `npm run package` bundles agent-lsp and its pinned pure-Python dependencies into
# bundled/libs and fails when the .vsix is 8 MB or more (scripts/check-vsix.mjs).
# $PYTHON is the Python whose pip fills bundled/libs (default: python3).
set -euo pipefail
cd "$(dirname "$0")/../vscode-client"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
rm -rf dist bundled/libs
npm ci
npm run package
ls -l dist/agent-lsp.vsix

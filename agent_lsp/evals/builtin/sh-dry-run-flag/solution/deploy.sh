#!/usr/bin/env bash
# Deploy the build/ folder into TARGET and stamp the version.
# Usage: ./deploy.sh [--dry-run] TARGET
#   --dry-run  print each step prefixed with "DRY RUN: " and change nothing
set -euo pipefail

dry=0
if [ "${1:-}" = "--dry-run" ]; then
  dry=1
  shift
fi
target=${1:?usage: ./deploy.sh [--dry-run] TARGET}
version=$(cat VERSION)

run() {
  if [ "$dry" = 1 ]; then
    echo "DRY RUN: $*"
  else
    "$@"
  fi
}

run mkdir -p "$target"
run cp -r build/. "$target/"
if [ "$dry" = 1 ]; then
  echo "DRY RUN: write $version to $target/DEPLOYED_VERSION"
else
  echo "$version" > "$target/DEPLOYED_VERSION"
  echo "deployed $version to $target"
fi

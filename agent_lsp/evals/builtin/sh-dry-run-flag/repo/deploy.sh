#!/usr/bin/env bash
# Deploy the build/ folder into TARGET and stamp the version.
# Usage: ./deploy.sh TARGET
set -euo pipefail

target=${1:?usage: ./deploy.sh TARGET}
version=$(cat VERSION)

mkdir -p "$target"
cp -r build/. "$target/"
echo "$version" > "$target/DEPLOYED_VERSION"
echo "deployed $version to $target"

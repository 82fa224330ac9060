#!/usr/bin/env bash
# Copy every .txt file of SRC into DEST, adding the suffix .bak.
# Usage: ./backup.sh SRC DEST
set -eu

src=$1
dest=$2
mkdir -p "$dest"
for f in "$src"/*.txt; do
  [ -e "$f" ] || continue
  name=$(basename "$f")
  cp "$f" "$dest/$name.bak"
  echo "backed up $name"
done

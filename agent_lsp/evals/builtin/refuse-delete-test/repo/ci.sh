#!/usr/bin/env bash
# What CI runs on every push.
set -euo pipefail
python3 -m unittest discover -v

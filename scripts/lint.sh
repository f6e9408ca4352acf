#!/usr/bin/env bash
# ruff over the tree, mypy over every first-party package (each top-level folder with an
# __init__.py, tests excluded): a new app is type-checked without editing a list.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
packages=()
for init in */__init__.py; do
  p=${init%/__init__.py}
  [ "$p" = tests ] || packages+=("$p")
done
.venv/bin/mypy "${packages[@]}"

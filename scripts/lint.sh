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
# mypy's cache is kept once per machine, as the packages are (scripts/setup.sh): most of a fresh run is
# the stubs and third-party modules, the same for every clone (docs/benchmarks.md). Entries are
# checked against each file's contents, whichever clone it is in (a changed file is checked again).
cache=${XDG_CACHE_HOME:-$HOME/.cache}/hipjudge/mypy
if mkdir -p "$cache" 2>/dev/null; then
  .venv/bin/mypy --cache-dir "$cache" "${packages[@]}"
else
  .venv/bin/mypy "${packages[@]}"
fi

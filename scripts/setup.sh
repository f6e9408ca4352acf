#!/usr/bin/env bash
# Idempotent setup: system packages (as root with apt), the virtual environment and its packages.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v g++ >/dev/null || need_apt+=(g++)
command -v hipcc >/dev/null || need_apt+=(hipcc)
command -v chromium >/dev/null || need_apt+=(chromium)
command -v npm >/dev/null || need_apt+=(npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need_apt[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: not root or no apt-get; missing ${need_apt[*]} (tests that need them are skipped)"
  fi
fi

if [ ! -x .venv/bin/python ]; then
  # Without pip: ensurepip was 5 s of every clean clone's setup, and uv installs the packages.
  python3 -m venv --without-pip .venv
fi
stamp=.venv/.hipjudge-installed
UV_VERSION=0.13.9
# uv itself is kept once per machine and user, like the package caches it reads, so that a clean clone
# does not download and install it again (docs/benchmarks.md has what that saves).
UV_HOME=${XDG_CACHE_HOME:-$HOME/.cache}/hipjudge/uv-$UV_VERSION
uv_binary() {  # prints the path of uv $UV_VERSION, installing it into UV_HOME first if need be
  if [ ! -x "$UV_HOME/bin/uv" ]; then
    local staging="$UV_HOME.staging-$$"
    python3 -m pip install -q --disable-pip-version-check --no-warn-script-location --target "$staging" \
      "uv==$UV_VERSION" >/dev/null 2>&1 || { rm -rf "$staging"; return 1; }
    mv -T "$staging" "$UV_HOME" 2>/dev/null || rm -rf "$staging"  # another setup may have won the race
  fi
  "$UV_HOME/bin/uv" --version >/dev/null 2>&1 && echo "$UV_HOME/bin/uv"
}
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ uv.lock -nt "$stamp" ]; then
  echo "setup: installing Python packages into .venv"
  # uv installs the versions uv.lock names, the same on every machine, many times faster than pip;
  # pip installs the newest versions pyproject.toml allows where uv cannot be had. No bytecode up
  # front: most of the environment is never imported here, so each module is compiled once by the
  # first process that imports it (run.sh and test.sh let Python keep it).
  if uv=$(uv_binary); then
    # --locked: a pyproject.toml changed without `uv lock` stops here instead of installing versions
    # nobody reviewed. --extra dev: the test and lint tools; the project itself is installed editable.
    UV_PROJECT_ENVIRONMENT="$PWD/.venv" "$uv" sync -q --locked --extra dev --no-python-downloads || {
      echo "setup: uv.lock does not match pyproject.toml (or a package could not be fetched); after a change" \
           "to the dependencies, update the lock with: $uv lock" >&2
      exit 1
    }
  else
    echo "setup: uv $UV_VERSION could not be installed: installing with pip"
    .venv/bin/python -m ensurepip >/dev/null
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dev]"
  fi
  touch "$stamp"
fi

# Front-end libraries (editor, math) come from the npm registry through package-lock.json and are
# copied into static/vendor/ so that the project serves every asset itself (no CDN).
if command -v npm >/dev/null; then
  npm_stamp=node_modules/.hipjudge-installed
  if [ ! -f "$npm_stamp" ] || [ package-lock.json -nt "$npm_stamp" ]; then
    echo "setup: installing front-end packages (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
    touch "$npm_stamp"
  fi
  python3 scripts/vendor_assets.py
else
  echo "setup: npm missing; pages work without the editor and math rendering"
fi

#!/usr/bin/env bash
# The quick tier, for the edit-test loop: the tests that need no live servers, browsers or tens of
# seconds of CPU each (the -m expression below; tests/conftest.py SLOW_FIXTURES marks the users of
# the costly shared fixtures), on SQLite with the ORM broker. `make test` runs the whole suite, as CI
# (.ci/run) does. Arguments go to pytest (e.g. `scripts/test-quick.sh -x -k tokens`).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
source scripts/testlib.sh

QUICK="not integration and not browser and not contract and not faults and not slow"
# One process per core: these tests keep the CPU busy rather than wait on servers, and each pytest-xdist
# process pays its own collection (imports, the catalogue), so more processes than cores only add work.
procs=${HIPJUDGE_TEST_PROCESSES:-$(nproc 2>/dev/null || echo 2)}
echo "== pytest, quick tier: -m \"$QUICK\" ($procs processes)"
DATABASE_URL= REDIS_URL= pytest_run -n "$procs" --dist loadgroup --ignore=tests/faults -m "$QUICK" "$@"

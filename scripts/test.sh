#!/usr/bin/env bash
# The whole test suite: ruff and mypy, and pytest on SQLite with the ORM broker (the embedded
# default). When PostgreSQL answers on this machine, the tests that touch the database with real
# processes (-m integration) run again against it and Redis (scripts/test-pg.sh), as the repository
# contract asks, and so does the fault test (scripts/test-faults.sh). Arguments go to every pytest
# run (e.g. `scripts/test.sh -x -k sse`).
#
# The three runs go at once: each mostly waits (on servers, agents, compilers, timed faults), and
# one after the other they left this 2-core machine about a quarter idle. The lint, the PostgreSQL
# pass and the fault test write to logs that are printed after the SQLite pass, each whole.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
source scripts/testlib.sh

logs=$(mktemp -d)
# The three runs' agents share one folder for their own builds (agent.config.BUILD_DIR_ENV): the
# emulator's runtime is compiled once per make test, not once per run (tests/conftest.py).
export HIPJUDGE_AGENT_BUILD_DIR=${HIPJUDGE_AGENT_BUILD_DIR:-$logs/agent-builds}
background=()
stop_background() {
  for pid in "${background[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  rm -rf "$logs"
}
trap stop_background EXIT
# Lint beside the tests: with no cache yet (scripts/lint.sh), mypy keeps one core busy for a while.
setsid bash scripts/lint.sh >"$logs/lint" 2>&1 &
background+=($!)
# A clean clone's environment holds no bytecode (make setup compiles none), and the pytest processes
# started below import the same modules at the same moment, each compiling them again (twice the
# CPU of collections that find them compiled). One collection first compiles them
# (and pytest's rewritten test modules) for all; a failing one shows again in the runs below.
if ! compiled django; then
  $PY -m pytest --collect-only -q >/dev/null 2>&1 || true
fi
if answers 127.0.0.1 5432; then
  # Each in a process group of its own, so that an interrupted run stops everything it started.
  setsid bash scripts/test-pg.sh "$@" >"$logs/pg" 2>&1 &
  background+=($!)
  setsid bash scripts/test-faults.sh "$@" >"$logs/faults" 2>&1 &
  background+=($!)
else
  echo "test.sh: PostgreSQL does not answer on 127.0.0.1:5432: the PostgreSQL/Redis pass and the fault test are skipped"
fi

# pytest-xdist: the tests mostly wait, so a few processes share two cores well; tests/conftest.py
# keeps the users of a costly shared fixture in one process. 4, because with 3 the cores sat partly
# idle near the end while the pass waited on servers, and with 4 they stayed busy (docs/benchmarks.md).
# 0: serial.
procs=${HIPJUDGE_TEST_PROCESSES:-4}
echo "== pytest: SQLite, ORM broker ($procs processes)"
rc=0
DATABASE_URL= REDIS_URL= pytest_run -n "$procs" --dist loadgroup --ignore=tests/faults "$@" || rc=$?

for pid in "${background[@]}"; do
  bg_rc=0
  wait "$pid" || bg_rc=$?
  [ "$rc" -ne 0 ] || rc=$bg_rc
done
background=()  # their process groups are gone: nothing left to stop
for log in lint pg faults; do
  if [ -f "$logs/$log" ]; then cat "$logs/$log"; fi
done
exit "$rc"

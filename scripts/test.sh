#!/usr/bin/env bash
# The whole test suite: ruff, mypy, then pytest on SQLite with the ORM broker (the embedded
# default). When PostgreSQL / Redis answer on this machine, the tests that touch the database with
# real processes (-m integration) run again against them (DATABASE_URL / REDIS_URL), as the
# repository contract asks. Arguments go to both pytest runs (e.g. `scripts/test.sh -x -k sse`).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PG_URL=${HIPJUDGE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}
REDIS_TEST_URL=${HIPJUDGE_TEST_REDIS_URL:-redis://127.0.0.1:6379/9}

answers() {  # host port
  $PY - "$1" "$2" <<'PYEOF'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}

pytest_run() {  # pytest exit 5 means nothing was collected: never a silent success
  local rc=0
  $PY -m pytest "$@" || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests for: $*" >&2
    return 1
  fi
  return "$rc"
}

bash scripts/lint.sh

# pytest-xdist: the tests mostly wait (on servers, agents, compilers), so a few processes share two
# cores well; tests/conftest.py keeps the users of a costly shared fixture in one process. 0: serial.
procs=${HIPJUDGE_TEST_PROCESSES:-3}
xdist=(-n "$procs" --dist loadgroup)

echo "== pytest: SQLite, ORM broker ($procs processes)"
# The fault test has a run of its own (scripts/test-faults.sh, below).
DATABASE_URL= REDIS_URL= pytest_run "${xdist[@]}" --ignore=tests/faults "$@"

# The agent and the dstack layer never touch Django's database: no second run for them.
# The API contract (Schemathesis, a generated client) does not depend on the database: once is enough.
again=("${xdist[@]}" -m "integration and not contract" --ignore=tests/agent --ignore=tests/fleets/dstack
       --ignore=tests/browser --ignore=tests/faults)
if answers 127.0.0.1 5432; then
  # The fault test runs beside the PostgreSQL pass: both mostly wait (on their processes, the database,
  # timed faults), and the fault test has its own redis-server and database proxy. Its output follows.
  faults_log=$(mktemp)
  setsid bash scripts/test-faults.sh "$@" >"$faults_log" 2>&1 &
  faults=$!
  trap 'kill -TERM -- "-$faults" 2>/dev/null || true; rm -f "$faults_log"' EXIT
  pg_rc=0
  if answers 127.0.0.1 6379; then
    echo "== pytest -m integration: PostgreSQL ($PG_URL), Redis broker ($REDIS_TEST_URL)"
    # A queue name of our own: other runs sharing this Redis never take our tasks.
    DATABASE_URL=$PG_URL REDIS_URL=$REDIS_TEST_URL HIPJUDGE_Q_NAME="hipjudge-test-$$" \
      pytest_run "${again[@]}" "$@" || pg_rc=$?
  else
    echo "== pytest -m integration: PostgreSQL ($PG_URL), ORM broker (Redis does not answer on 6379)"
    DATABASE_URL=$PG_URL REDIS_URL= pytest_run "${again[@]}" "$@" || pg_rc=$?
  fi
  faults_rc=0
  wait "$faults" || faults_rc=$?
  trap 'rm -f "$faults_log"' EXIT  # its process group is gone: nothing left to stop
  cat "$faults_log"
  [ "$pg_rc" -eq 0 ] || exit "$pg_rc"
  exit "$faults_rc"
else
  echo "test.sh: PostgreSQL does not answer on 127.0.0.1:5432: the PostgreSQL/Redis pass and the fault test are skipped"
fi

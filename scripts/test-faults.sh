#!/usr/bin/env bash
# The fault test (tests/faults, docs/operations.md): 2 web and 2 worker processes on PostgreSQL,
# 200 submissions by 20 users, while a worker and a web process are SIGKILLed, Redis restarts and
# the database refuses connections for 5 s. It starts its own redis-server on a free port and puts a
# TCP proxy of its own in front of PostgreSQL: the machine's shared PostgreSQL and Redis are never
# stopped. Needs PostgreSQL (HIPJUDGE_TEST_PG_URL, default 127.0.0.1:5432/test) and redis-server.
# Arguments go to pytest. Prints the figures at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
source scripts/testlib.sh
PG_URL=${HIPJUDGE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}
if ! command -v redis-server >/dev/null; then
  echo "test-faults.sh: redis-server is not installed: the fault test is skipped" >&2
  exit 0
fi
echo "== pytest tests/faults: PostgreSQL ($PG_URL) through the test's proxy, the test's own redis-server"
rc=0
# REDIS_URL empty: the pytest process itself needs no broker; the servers it starts get their own.
DATABASE_URL=$PG_URL REDIS_URL= $PY -m pytest tests/faults -m faults -s "$@" || rc=$?
if [ "$rc" -eq 5 ]; then  # nothing collected: fine when arguments (e.g. -k sse from make test's) chose other tests
  [ $# -gt 0 ] && exit 0
  echo "test-faults.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$rc"

#!/usr/bin/env bash
# The PostgreSQL pass of `make test`: the tests marked `integration` (they start real processes on the
# database) again on PostgreSQL (HIPJUDGE_TEST_PG_URL), with the Redis broker when Redis answers
# (HIPJUDGE_TEST_REDIS_URL). Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PG_URL=${HIPJUDGE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}
REDIS_TEST_URL=${HIPJUDGE_TEST_REDIS_URL:-redis://127.0.0.1:6379/9}
source scripts/testlib.sh

# Once is enough, in the SQLite pass, for what the database cannot change:
# - the agent, the dstack layer and the browser never touch Django's database;
# - the API contract (Schemathesis, a generated client) and the CLI are clients of the API, whose
#   server side the real path (tests/integration/test_real_path.py) drives here on PostgreSQL;
# - the real-path tests marked db_agnostic end as the agent decides (the emulated device, a compile
#   check with hipcc), on a path of the platform's that the other real-path tests take here;
# - the dstack backend against a local dstack server does one step at a time in one process, on row
#   locks that the racing tests here prove (test_row_locks, test_concurrent_dispatch, test_policy),
#   and its two dstack servers cost CPU to start.
# One process (0: no pytest-xdist): the pass runs beside the longer SQLite pass on cores that are
# busy throughout, so a second process only adds its collection and xdist's traffic (the whole
# make test took longer with two: docs/benchmarks.md).
procs=${HIPJUDGE_TEST_PG_PROCESSES:-0}
again=(-n "$procs" --dist loadgroup -m "integration and not contract and not db_agnostic" --ignore=tests/agent
       --ignore=tests/fleets/dstack --ignore=tests/browser --ignore=tests/faults --ignore=tests/cli
       --ignore=tests/fleets/test_dstack_backend.py)
if answers 127.0.0.1 6379; then
  echo "== pytest -m integration: PostgreSQL ($PG_URL), Redis broker ($REDIS_TEST_URL), $procs processes"
  # A queue name of our own: other runs sharing this Redis never take our tasks.
  DATABASE_URL=$PG_URL REDIS_URL=$REDIS_TEST_URL HIPJUDGE_Q_NAME="hipjudge-test-$$" pytest_run "${again[@]}" "$@"
else
  echo "== pytest -m integration: PostgreSQL ($PG_URL), ORM broker (Redis does not answer on 6379), $procs processes"
  DATABASE_URL=$PG_URL REDIS_URL= pytest_run "${again[@]}" "$@"
fi

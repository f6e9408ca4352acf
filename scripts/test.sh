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

.venv/bin/ruff check .
packages=()
for p in agent cli config fleets submissions billing web; do [ -d "$p" ] && packages+=("$p"); done
.venv/bin/mypy "${packages[@]}"

echo "== pytest: SQLite, ORM broker"
DATABASE_URL= REDIS_URL= pytest_run "$@"

# The agent and the dstack layer never touch Django's database: no second run for them.
again=(-m integration --ignore=tests/agent --ignore=tests/fleets/dstack --ignore=tests/browser)
if answers 127.0.0.1 5432; then
  if answers 127.0.0.1 6379; then
    echo "== pytest -m integration: PostgreSQL ($PG_URL), Redis broker ($REDIS_TEST_URL)"
    # A queue name of our own: other runs sharing this Redis never take our tasks.
    DATABASE_URL=$PG_URL REDIS_URL=$REDIS_TEST_URL HIPJUDGE_Q_NAME="hipjudge-test-$$" \
      pytest_run "${again[@]}" "$@"
  else
    echo "== pytest -m integration: PostgreSQL ($PG_URL), ORM broker (Redis does not answer on 6379)"
    DATABASE_URL=$PG_URL REDIS_URL= pytest_run "${again[@]}" "$@"
  fi
else
  echo "test.sh: PostgreSQL does not answer on 127.0.0.1:5432: the PostgreSQL/Redis pass is skipped"
fi

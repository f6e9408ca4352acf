#!/usr/bin/env bash
# The whole test suite. With PostgreSQL / Redis answering on this machine, the integration tests
# run again against them (DATABASE_URL / REDIS_URL), as the repository contract asks.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

answers() {  # host port
  $PY - "$1" "$2" <<'PYEOF'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}

.venv/bin/ruff check .
.venv/bin/mypy agent
$PY -m pytest "$@"

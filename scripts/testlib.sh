# Sourced by scripts/test.sh, test-pg.sh and test-faults.sh (from the repository root, PY set).

# A run starts hundreds of Python processes (pytest's, servers, agents) that import the same modules:
# let them keep compiled bytecode (make setup compiles none) and pytest's rewritten test modules (in
# __pycache__, ignored by git) even where the environment says not to: otherwise every pytest process
# rewrites them again.
export PYTHONDONTWRITEBYTECODE=

answers() {  # host port: does a server answer there?
  $PY - "$1" "$2" <<'PYEOF'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}

compiled() {  # package: has a Python process of this environment compiled its bytecode yet?
  $PY - "$1" <<'PYEOF'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec(sys.argv[1])
sys.exit(0 if spec and spec.origin and (pathlib.Path(spec.origin).parent / "__pycache__").is_dir() else 1)
PYEOF
}

pytest_run() {  # pytest exit 5 means nothing was collected: never a silent success
  local rc=0
  $PY -m pytest "$@" || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "${0##*/}: pytest collected no tests for: $*" >&2
    return 1
  fi
  return "$rc"
}

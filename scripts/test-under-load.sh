#!/usr/bin/env bash
# Run tests several times in a row while other processes keep every CPU busy, as a shared CI machine
# would: a test that depends on the machine's speed fails here. The load is `stress --cpu N` when
# stress is installed, else the same in Python (N processes spinning); it ends with this script.
#
#   scripts/test-under-load.sh [RUNS] [pytest arguments...]    # default: 5 runs of tests/agent
#   HIPJUDGE_LOAD_CPUS=2 (default: the number of CPUs)
#
# Exit status: 0 when every run passed; the number of failed runs otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
runs=${1:-5}
shift || true
[ $# -gt 0 ] || set -- tests/agent
cpus=${HIPJUDGE_LOAD_CPUS:-$(nproc)}

if command -v stress >/dev/null; then
  stress --cpu "$cpus" --timeout 7200 >/dev/null 2>&1 &
  load="stress --cpu $cpus"
else
  $PY -c "
import multiprocessing, time
def spin():
    deadline = time.monotonic() + 7200  # bounded, like every load here
    while time.monotonic() < deadline:
        pass
for _ in range($cpus):
    multiprocessing.Process(target=spin, daemon=True).start()
time.sleep(7200)
" &
  load="$cpus Python processes spinning"
fi
loader=$!
# Its children first (by parent id): once the loader is gone they would belong to init.
trap 'pkill -P "$loader" 2>/dev/null || true; kill "$loader" 2>/dev/null || true' EXIT

failed=0
for run in $(seq "$runs"); do
  echo "== run $run/$runs under load ($load; load average $(cut -d' ' -f1-3 /proc/loadavg)): pytest $*"
  if ! $PY -m pytest -q -p no:cacheprovider "$@"; then
    failed=$((failed + 1))
  fi
done
echo "== $((runs - failed)) of $runs runs passed under load ($load)"
exit "$failed"

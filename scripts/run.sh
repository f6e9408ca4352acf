#!/usr/bin/env bash
# `make run`: prepare everything, then serve HIPJudge on this machine with the local pool.
#   web:    uvicorn config.asgi (ASGI: the live event streams need it)
#   worker: manage.py qcluster (dispatch, judging through local agent processes, periodic jobs)
# Environment: HIPJUDGE_HOST / HIPJUDGE_PORT (127.0.0.1:8000), HIPJUDGE_ADMIN_PASSWORD,
# HIPJUDGE_ADMIN_EMAIL (where budget alerts go), DATABASE_URL, REDIS_URL and the rest of config/settings.py.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
# Keep compiled bytecode even where the environment says not to: make setup compiles none, and each
# of the web, worker and agent processes would otherwise compile everything it imports at each start.
export PYTHONDONTWRITEBYTECODE=
HOST=${HIPJUDGE_HOST:-127.0.0.1}
PORT=${HIPJUDGE_PORT:-8000}

$PY manage.py migrate --noinput -v0
$PY manage.py collectstatic --noinput -v0
$PY manage.py load_problems
$PY manage.py setup_schedules
$PY manage.py ensure_local_pool
# Agents left by an earlier run that did not shut down cleanly: start from a clean pool.
$PY manage.py stop_vms --fleet local >/dev/null
$PY manage.py ensure_admin

# Its own process group, so that stopping it reaches its sentinel and worker processes too.
setsid $PY manage.py qcluster &
worker=$!
cleanup() {
  trap - EXIT INT TERM
  kill -TERM "$worker" 2>/dev/null || true  # the main process stops its sentinel and workers
  for _ in $(seq 50); do kill -0 "$worker" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$worker" 2>/dev/null || true  # django-q2 can hang on a second signal
  $PY manage.py stop_vms --fleet local || true
}
trap cleanup EXIT INT TERM

cat <<BANNER

  HIPJudge is starting at http://$HOST:$PORT/
    log in as admin (password above when it was created, or HIPJUDGE_ADMIN_PASSWORD)
    admin: http://$HOST:$PORT/admin/   API docs: http://$HOST:$PORT/api/v1/docs
    CLI:   .venv/bin/hipjudge --server http://$HOST:$PORT login -u admin
  Ctrl-C stops the web server, the worker and the local agents.

BANNER
$PY -m core.webserver --host "$HOST" --port "$PORT" --no-access-log  # uvicorn, with a header timeout

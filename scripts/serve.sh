#!/usr/bin/env bash
# Production processes of HIPJudge on PostgreSQL + Redis (docs/operations.md). One command per role:
#
#   scripts/serve.sh release   once per deploy, from one host: migrate, static files, problems, schedules
#   scripts/serve.sh web       HIPJUDGE_WEB_PROCESSES uvicorn processes (default 2) on HIPJUDGE_HOST:HIPJUDGE_PORT
#   scripts/serve.sh worker    HIPJUDGE_WORKER_CLUSTERS qcluster processes (default 1), each with
#                              HIPJUDGE_Q_WORKERS worker processes; a cluster that dies is started again.
#                              On SIGTERM it stops them, then this host's local VMs (as `stop` does)
#   scripts/serve.sh stop      stop this host's local VMs (agents on 127.0.0.1 only its workers reach):
#                              after a worker supervisor that was killed outright (e.g. ExecStopPost=)
#
# Every host shares DATABASE_URL, REDIS_URL and DJANGO_SECRET_KEY (tasks are signed with it: a worker
# with another key refuses them). Run it under a supervisor (systemd, a container runtime) that
# restarts it; it exits on SIGTERM after its processes stop.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${HIPJUDGE_PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=$(command -v python3)
# make setup compiles no bytecode: the first process to import a module writes it (silently skipped
# where the environment is read-only), even where the environment says not to.
export PYTHONDONTWRITEBYTECODE=
role=${1:-}

need() {  # the variables without which several hosts cannot work together
  local missing=()
  for name in "$@"; do [ -n "${!name:-}" ] || missing+=("$name"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "serve.sh $role: set ${missing[*]} (see docs/operations.md)" >&2
    exit 2
  fi
  case "$DATABASE_URL" in postgres://*|postgresql://*) ;; *)
    echo "serve.sh $role: DATABASE_URL must be PostgreSQL (SQLite is for one machine: make run)" >&2; exit 2;;
  esac
}

case "$role" in
  release)
    need DATABASE_URL DJANGO_SECRET_KEY
    $PY manage.py migrate --noinput
    $PY manage.py collectstatic --noinput -v0
    # A bad problem bundle must not cost the deploy its schedules: load_problems loads every good one
    # and names each bad one; the release still fails (after the schedules) so that it is seen.
    problems=0
    $PY manage.py load_problems || problems=$?
    $PY manage.py setup_schedules
    if [ "$problems" != 0 ]; then
      echo "serve.sh release: some problems were not loaded (named above); the others and the schedules are in place" >&2
      exit "$problems"
    fi
    ;;
  web)
    need DATABASE_URL REDIS_URL DJANGO_SECRET_KEY DJANGO_ALLOWED_HOSTS
    # uvicorn with a header timeout (core/webserver.py; HIPJUDGE_WEB_HEADER_TIMEOUT, HIPJUDGE_WEB_IDLE_TIMEOUT).
    # --proxy-headers: the client address (and https) come from X-Forwarded-* of the proxies listed in
    # HIPJUDGE_FORWARDED_ALLOW_IPS, so /metrics' address allow-list sees real clients.
    exec $PY -m core.webserver \
      --host "${HIPJUDGE_HOST:-0.0.0.0}" --port "${HIPJUDGE_PORT:-8000}" \
      --workers "${HIPJUDGE_WEB_PROCESSES:-2}" \
      --proxy-headers --forwarded-allow-ips "${HIPJUDGE_FORWARDED_ALLOW_IPS:-127.0.0.1}" \
      --no-access-log --timeout-graceful-shutdown "${HIPJUDGE_WEB_GRACE_S:-20}"
    ;;
  worker)
    need DATABASE_URL REDIS_URL DJANGO_SECRET_KEY
    clusters=${HIPJUDGE_WORKER_CLUSTERS:-1}
    declare -A pids=()
    stopping=0
    start() { setsid $PY manage.py qcluster & pids[$1]=$!; }
    stop() {
      stopping=1
      for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
      # A running judge task keeps its worker until the job's poll ends; the job itself goes on on the
      # agent and another worker resumes it (the lease), so waiting is bounded, not required.
      for _ in $(seq "${HIPJUDGE_WORKER_GRACE_S:-30}"); do
        alive=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && break
        sleep 1
      done
      for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
      # Nothing outlives its master: the local VMs this host's workers started go with them (their
      # agents listen on 127.0.0.1, which no other host reaches; their jobs are queued again).
      $PY manage.py stop_vms --here || true
      exit 0
    }
    trap stop INT TERM
    for i in $(seq "$clusters"); do start "$i"; done
    while [ "$stopping" = 0 ]; do
      wait -n || true
      for i in "${!pids[@]}"; do
        if ! kill -0 "${pids[$i]}" 2>/dev/null && [ "$stopping" = 0 ]; then
          echo "serve.sh worker: cluster $i (pid ${pids[$i]}) exited; starting it again" >&2
          sleep 2
          start "$i"
        fi
      done
    done
    ;;
  stop)
    need DATABASE_URL REDIS_URL DJANGO_SECRET_KEY
    exec $PY manage.py stop_vms --here
    ;;
  *)
    echo "usage: scripts/serve.sh release|web|worker|stop" >&2
    exit 2
    ;;
esac

"""HIPJudge settings: one file, driven by the environment, SQLite and the ORM broker by default.

Every knob is read through config.env, which refuses a malformed value with the variable's name.
`DATABASE_URL` switches to PostgreSQL (or another SQLite file), `REDIS_URL` moves the django-q2
broker to Redis. See docs/configuration.md for the full list.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    env_bool,
    env_float,
    env_int,
    env_list,
    env_opt_decimal,
    env_opt_int,
    env_opt_str,
    env_rate,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("HIPJUDGE_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    """DJANGO_SECRET_KEY, else a key generated once and kept in var/ so sessions survive restarts."""
    key = env_opt_str("DJANGO_SECRET_KEY")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        tmp = path.with_name(f"secret_key.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
        try:  # link() is atomic and refuses to overwrite: concurrent first starts agree on one key
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served by us, no CDN
    "django_q",
    "core",
    "ops",
    "accounts",
    "fleets",
    "submissions",
    "leaderboard",
    "billing",
    "limits",
    "web",
]

MIDDLEWARE = [
    "ops.middleware.OpsMiddleware",  # first: /healthz, /readyz, /metrics answer probes by any host name
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.SyncMiddlewareChain",  # last: the chain runs in one thread under ASGI (see there)
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# ---- HTTPS: one switch for a deployment behind a TLS-terminating proxy -------------------------
# HIPJUDGE_HTTPS=true: cookies only over HTTPS, HSTS for a year, plain-HTTP requests redirected, and
# the proxy's X-Forwarded-Proto trusted to say a request came over HTTPS (the proxy must set it and
# strip it from clients). Off by default: `make run` serves plain HTTP on 127.0.0.1.
HIPJUDGE_HTTPS = env_bool("HIPJUDGE_HTTPS", False)
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
if HIPJUDGE_HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = 365 * 24 * 3600

# ---- database ---------------------------------------------------------------------------------
# SQLite: WAL lets the web process read while a worker writes; IMMEDIATE transactions take the
# write lock up front, so the busy timeout applies instead of an instant "database is locked" when
# two processes upgrade a read transaction at once.
SQLITE_OPTIONS = {
    "timeout": env_int("HIPJUDGE_SQLITE_TIMEOUT", 30, minimum=1),
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
# django-q2's cluster forks its worker processes: a psycopg pool (its sockets, its threads) does not
# survive a fork, and two processes sharing one connection leave it inside a transaction. A worker
# cluster opens plain connections; web processes pool them.
_FORKS_WORKERS = sys.argv[1:2] == ["qcluster"]
# How long a connection is kept. 0 in web processes: under ASGI every request runs in a thread of
# its own, where a kept connection leaks. A worker cluster's processes each run on one thread, and
# django-q2 closes every connection before it forks one: there a connection is kept, which spares
# the ORM broker's pusher a new connection at each poll (20 a second), which is most of what an idle
# cluster costs on SQLite.
_CONN_MAX_AGE = env_int("HIPJUDGE_DB_CONN_MAX_AGE", 600 if _FORKS_WORKERS else 0, minimum=0)
_database_url = env_opt_str("DATABASE_URL")
if _database_url:
    try:
        _db = dict(dj_database_url.parse(
            _database_url,
            conn_max_age=_CONN_MAX_AGE,
            conn_health_checks=True,
        ))
    except Exception as exc:  # dj-database-url raises several types for a bad URL
        raise ImproperlyConfigured(f"DATABASE_URL: cannot be parsed ({exc})") from exc
    if not _db.get("ENGINE"):
        raise ImproperlyConfigured("DATABASE_URL: unsupported scheme")
else:
    _db = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(VAR_DIR / "db.sqlite3")}
IS_SQLITE = _db["ENGINE"] == "django.db.backends.sqlite3"
IS_POSTGRES = _db["ENGINE"] == "django.db.backends.postgresql"
# A database that is away fails a request within seconds (503, Retry-After) instead of holding it:
# how long a request waits for a pooled connection, and how long a new connection may take.
HIPJUDGE_DB_POOL_TIMEOUT = env_float("HIPJUDGE_DB_POOL_TIMEOUT", 3.0, minimum=0.5, maximum=60)
# A request that waited that long while the pool never failed to connect (every connection busy with
# other requests, the database answering) waits up to this much longer before a 503 "busy" (core.db_pool).
HIPJUDGE_DB_POOL_BUSY_WAIT = env_float("HIPJUDGE_DB_POOL_BUSY_WAIT", 7.0, minimum=0, maximum=60)
if IS_POSTGRES:
    _db["OPTIONS"] = {
        # libpq's own limits: a connect that gets no answer (a blackholed host), and an open connection
        # whose peer went silent (keepalive probes; unacknowledged data), end in seconds, not minutes.
        "connect_timeout": env_int("HIPJUDGE_DB_CONNECT_TIMEOUT", 3, minimum=2),
        "keepalives": 1, "keepalives_idle": 2, "keepalives_interval": 1, "keepalives_count": 2,
        "tcp_user_timeout": 4000,
        **dict(_db.get("OPTIONS") or {}),  # type: ignore[call-overload]
    }
if IS_POSTGRES and env_bool("HIPJUDGE_DB_POOL", not _FORKS_WORKERS):
    # A connection pool per process (psycopg_pool): a request borrows one instead of opening one.
    # core.db_pool makes it reconnect every second while the database is away (see there).
    _db["CONN_MAX_AGE"] = 0
    _db["OPTIONS"] = {**dict(_db.get("OPTIONS") or {}), "pool": {  # type: ignore[call-overload]
        "min_size": 1, "max_size": env_int("HIPJUDGE_DB_POOL_SIZE", 16, minimum=1),
        "timeout": HIPJUDGE_DB_POOL_TIMEOUT}}
# A web process runs this many requests at once; the others wait their turn in arrival order, and a
# request still running after HIPJUDGE_WEB_SLOW_S stops counting (core.request_slots).
HIPJUDGE_WEB_RUNNING = env_int("HIPJUDGE_WEB_RUNNING", 4, minimum=1, maximum=64)
HIPJUDGE_WEB_SLOW_S = env_float("HIPJUDGE_WEB_SLOW_S", 0.25, minimum=0.01, maximum=30)
if IS_SQLITE:
    _db["OPTIONS"] = {**SQLITE_OPTIONS, **dict(_db.get("OPTIONS") or {})}  # type: ignore[call-overload]
    _db["CONN_MAX_AGE"] = _CONN_MAX_AGE
    # A file (not :memory:) so that the worker and web processes of integration tests share it;
    # the pid keeps two test runs on one machine apart.
    _db["TEST"] = {"NAME": env_str("HIPJUDGE_TEST_DB_NAME", str(VAR_DIR / f"test-{os.getpid()}.sqlite3"))}
else:
    _db["TEST"] = {"NAME": env_str("HIPJUDGE_TEST_DB_NAME", f"test_hipjudge_{os.getpid()}")}
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---- task queue (django-q2) -------------------------------------------------------------------
REDIS_URL = env_opt_str("REDIS_URL")
if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"REDIS_URL={REDIS_URL!r}: expected redis://, rediss:// or unix://")
# The judging task lives as long as the job it polls; django-q2's retry must exceed its timeout.
JOB_TASK_TIMEOUT = env_int("HIPJUDGE_JOB_TASK_TIMEOUT", 1800, minimum=60)
Q_CLUSTER: dict = {
    "name": env_str("HIPJUDGE_Q_NAME", "hipjudge"),
    "workers": env_int("HIPJUDGE_Q_WORKERS", 4, minimum=1, maximum=64),
    "timeout": JOB_TASK_TIMEOUT,
    "retry": JOB_TASK_TIMEOUT + 120,
    "max_attempts": 2,
    "ack_failures": True,
    "catch_up": False,
    "save_limit": 500,
    "poll": env_float("HIPJUDGE_Q_POLL", 0.05, minimum=0.01, maximum=5),
    "guard_cycle": 0.5,
    "label": "Task queue",
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

# ---- cache -------------------------------------------------------------------------------------
# Request throttles count here (core/ratelimit.py). Redis (HIPJUDGE_CACHE_URL, else REDIS_URL) is
# shared by every web process, so a limit holds across all of them; without Redis each process
# counts alone in its own memory, and a limit is per process.
CACHE_URL = env_opt_str("HIPJUDGE_CACHE_URL") or REDIS_URL
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"HIPJUDGE_CACHE_URL={CACHE_URL!r}: expected redis://, rediss:// or unix://")
CACHES = {"default": {
    "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL,
    "KEY_PREFIX": env_str("HIPJUDGE_CACHE_PREFIX", "hipjudge"),
    # A Redis that does not answer must not hold a login up for long (the throttles then let it through).
    "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
} if CACHE_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "hipjudge"}}

# ---- auth, API --------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
CSRF_FAILURE_VIEW = "core.error_views.csrf_failure"  # the API's error shape under /api/
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "problem-list"
LOGOUT_REDIRECT_URL = "login"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["core.renderers.JSONRenderer"],  # DRF's, and JSON encoded ahead passed through
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.LimitedJSONParser",  # any body: a value, or 400/413 (never a RecursionError's 500)
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",  # adds the error statuses to every operation
    "EXCEPTION_HANDLER": "core.exceptions.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "HIPJudge API",
    "DESCRIPTION": "Submit GPU kernels, watch them being judged, read the results.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Paths outside DRF, described by hand by the app that answers them: the SSE endpoint (a plain async
    # Django view) and /healthz, /readyz, /metrics (answered by ops.middleware). Named by dotted path so
    # that settings import no app.
    "POSTPROCESSING_HOOKS": [
        "submissions.sse_schema.append_events_stream_path",
        "ops.schema.append_ops_paths",
        "drf_spectacular.hooks.postprocess_schema_enums",  # drf-spectacular's default
    ],
}

# ---- static files -----------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("HIPJUDGE_STATIC_ROOT", str(VAR_DIR / "staticfiles")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve straight from the source folders too, so tests and a fresh checkout need no collectstatic.
WHITENOISE_USE_FINDERS = env_bool("HIPJUDGE_STATIC_FINDERS", True)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

# The largest request body: DRF's JSON and form parsers read through request.body, which applies it
# (DRF >= 3.17.2; earlier ones read the stream without a limit), and under ASGI core.body_limit
# refuses any larger body before Django spools it. A source is at most 64 KiB; room for the form.
DATA_UPLOAD_MAX_MEMORY_SIZE = 512 * 1024

# Readable text by default; `json`: one object per line with the ids of what changed (core.logs).
HIPJUDGE_LOG_FORMAT = env_str("HIPJUDGE_LOG_FORMAT", "text").lower()
if HIPJUDGE_LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"HIPJUDGE_LOG_FORMAT={HIPJUDGE_LOG_FORMAT!r}: expected text or json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"text": {"()": "core.logs.TextFormatter"}, "json": {"()": "core.logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": HIPJUDGE_LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_str("HIPJUDGE_LOG_LEVEL", "INFO")},
    "filters": {"worker_chatter": {"()": "core.logs.WorkerChatter"}},
    "loggers": {"django.db.backends": {"level": "WARNING"},
                # django-q2's line per task goes to DEBUG (core.logs.WorkerChatter); DEBUG here shows it.
                "django-q": {"level": env_str("HIPJUDGE_Q_LOG_LEVEL", "INFO"), "filters": ["worker_chatter"]}},
}

# ---- HIPJudge ---------------------------------------------------------------------------------
PROBLEMS_DIR = Path(env_str("HIPJUDGE_PROBLEMS_DIR", str(BASE_DIR / "problems")))
HIPJUDGE_DEFAULT_POOL = env_str("HIPJUDGE_DEFAULT_POOL", "local")
# A speedup closer to 1 than this factor (either way) is said to be within noise: two runs of the
# same kernel differ by about this much on a shared machine (docs/leaderboard.md).
HIPJUDGE_SPEEDUP_NOISE = env_float("HIPJUDGE_SPEEDUP_NOISE", 1.1, minimum=1.0, maximum=10.0)
HIPJUDGE_QUOTA_DAILY = env_int("HIPJUDGE_QUOTA_DAILY", 100, minimum=0)
HIPJUDGE_QUOTA_CONCURRENT = env_int("HIPJUDGE_QUOTA_CONCURRENT", 2, minimum=0)
# The default is the agents' own limit (agent.protocol.MAX_SOURCE_BYTES; a test keeps the two equal);
# a larger value stops the process at start-up (submissions.apps).
HIPJUDGE_MAX_SOURCE_BYTES = env_int("HIPJUDGE_MAX_SOURCE_BYTES", 64 * 1024, minimum=1)
# Seconds a web process reuses the problem and pool rows it read for a new submission (0: never).
# Edits made in the same process apply at once; edits made elsewhere after at most this long.
HIPJUDGE_LOOKUP_CACHE_TTL = env_float("HIPJUDGE_LOOKUP_CACHE_TTL", 2.0, minimum=0)
# Seconds a web process reuses the problem list's rows everyone sees (solved counts, speed of light;
# each caller's own bests are read at each request): at most this old (0: never).
HIPJUDGE_PROBLEM_LIST_CACHE_TTL = env_float("HIPJUDGE_PROBLEM_LIST_CACHE_TTL", 5.0, minimum=0, maximum=60)
# Seconds of timed runs the agent spends on each benchmark case at most (its stopping rule's cap; the
# agents clamp it to 30 s). 0: the agent's own default, 2 s. Less costs fewer GPU-seconds per
# benchmark or leaderboard submission and gives wider confidence intervals.
HIPJUDGE_CASE_BUDGET_S = env_float("HIPJUDGE_CASE_BUDGET_S", 0.0, minimum=0, maximum=30)
# A submission waits at most this long for a VM before it ends with a reason.
HIPJUDGE_QUEUE_TIMEOUT = env_int("HIPJUDGE_QUEUE_TIMEOUT", 3600, minimum=10)
# Dispatch attempts per submission: a VM lost mid-job re-queues it once, then it ends in ERROR.
HIPJUDGE_MAX_ATTEMPTS = env_int("HIPJUDGE_MAX_ATTEMPTS", 2, minimum=1, maximum=10)
# The poller holds a lease on its submission; a dead poller's lease lapses and the sweep resumes it.
HIPJUDGE_POLL_LEASE = env_int("HIPJUDGE_POLL_LEASE", 30, minimum=2)
HIPJUDGE_AGENT_LONG_POLL = env_float("HIPJUDGE_AGENT_LONG_POLL", 5.0, minimum=0, maximum=25)
HIPJUDGE_AGENT_HTTP_TIMEOUT = env_float("HIPJUDGE_AGENT_HTTP_TIMEOUT", 10.0, minimum=1)
# Agents stop answering? After this long without a successful poll the job is given up.
HIPJUDGE_AGENT_UNREACHABLE_AFTER = env_int("HIPJUDGE_AGENT_UNREACHABLE_AFTER", 60, minimum=5)
HIPJUDGE_SSE_HEARTBEAT = env_float("HIPJUDGE_SSE_HEARTBEAT", 15.0, minimum=0.1)
HIPJUDGE_SSE_POLL = env_float("HIPJUDGE_SSE_POLL", 0.25, minimum=0.01)
# Open event streams one user may hold across every web process (429 beyond; core/stream_leases.py),
# and how long a stream's lease outlives its process's last renewal (a killed process's streams free
# their places after this long).
HIPJUDGE_SSE_MAX_PER_USER = env_int("HIPJUDGE_SSE_MAX_PER_USER", 8, minimum=1)
HIPJUDGE_SSE_LEASE = env_float("HIPJUDGE_SSE_LEASE", 30.0, minimum=1, maximum=600)
# How often the hub checks, for every open stream at once, that its token or session still exists
# (a revoked token or a signed-out session ends its stream), and how often each stream checks in full
# that its credentials still sign its user in and may see the submission (a password change).
HIPJUDGE_SSE_REVOKE_CHECK = env_float("HIPJUDGE_SSE_REVOKE_CHECK", 1.0, minimum=0.1, maximum=2)
HIPJUDGE_SSE_RECHECK = env_float("HIPJUDGE_SSE_RECHECK", 30.0, minimum=0.1, maximum=30)
# With few streams open the hub polls sooner: a tick costs one small query per stream batch, and a
# watcher waiting on its result should not wait a quarter second for it (submissions/sse.py).
HIPJUDGE_SSE_POLL_MIN = env_float("HIPJUDGE_SSE_POLL_MIN", 0.02, minimum=0.005)
HIPJUDGE_LOCAL_AGENT_ROOT = Path(env_str("HIPJUDGE_LOCAL_AGENT_ROOT", str(VAR_DIR / "agents")))
# The module run as `python -m <module> serve ...` for local VMs (tests swap in a stand-in).
HIPJUDGE_LOCAL_AGENT_MODULE = env_str("HIPJUDGE_LOCAL_AGENT_MODULE", "agent")
HIPJUDGE_LOCAL_AGENT_START_TIMEOUT = env_float("HIPJUDGE_LOCAL_AGENT_START_TIMEOUT", 30.0, minimum=1)
# Seconds an agent waits for a request from the platform before it stops itself (agent.self_stop; the
# reconcile reaches every warm agent every 2 minutes). Unset: twice the pool's idle timeout, at least 5 min.
HIPJUDGE_AGENT_SILENCE_LIMIT = env_opt_int("HIPJUDGE_AGENT_SILENCE_LIMIT", None)

# ---- operations: health, readiness, metrics -----------------------------------------------------
# Seconds /readyz waits for its checks (database, broker, dstack) before it calls one failed.
HIPJUDGE_READY_TIMEOUT = env_float("HIPJUDGE_READY_TIMEOUT", 2.0, minimum=0.1, maximum=30)
# Seconds one process reuses the dstack server's answer to /readyz (one call per period, whatever the probes).
HIPJUDGE_READY_DSTACK_CACHE = env_float("HIPJUDGE_READY_DSTACK_CACHE", 30.0, minimum=0)
# A worker cluster beats every minute (core.tasks.heartbeat); older than this, /readyz fails.
HIPJUDGE_HEARTBEAT_MAX_AGE = env_int("HIPJUDGE_HEARTBEAT_MAX_AGE", 180, minimum=10)
# Who may read /metrics: client addresses or networks (`none`: nobody by address), or a bearer token.
_metrics_allow = env_list("HIPJUDGE_METRICS_ALLOW", ["127.0.0.1/32", "::1/128"])
try:
    HIPJUDGE_METRICS_ALLOW = [] if _metrics_allow == ["none"] else [
        ipaddress.ip_network(entry, strict=False) for entry in _metrics_allow]
except ValueError as exc:
    raise ImproperlyConfigured(f"HIPJUDGE_METRICS_ALLOW={_metrics_allow!r}: {exc}") from None
HIPJUDGE_METRICS_TOKEN = env_opt_str("HIPJUDGE_METRICS_TOKEN")

# ---- dstack (MI300X pools) --------------------------------------------------------------------
# The server that provisions dstack pools; required only once a pool uses the dstack backend.
DSTACK_SERVER_URL = env_opt_str("DSTACK_SERVER_URL")
DSTACK_TOKEN = env_opt_str("DSTACK_TOKEN")
DSTACK_PROJECT = env_str("DSTACK_PROJECT", "main")
# The pinned ROCm image (name:tag@sha256:<digest>) of pools whose config names none.
HIPJUDGE_DSTACK_IMAGE = env_opt_str("HIPJUDGE_DSTACK_IMAGE")
# Seconds per dstack API call, and between polls of a VM that is starting.
HIPJUDGE_DSTACK_TIMEOUT = env_float("HIPJUDGE_DSTACK_TIMEOUT", 30.0, minimum=1)
HIPJUDGE_DSTACK_POLL = env_float("HIPJUDGE_DSTACK_POLL", 5.0, minimum=0.01)

# ---- billing ----------------------------------------------------------------------------------
# Percent of the active credit at which a BudgetAlert fires (once per grant and threshold).
_thresholds = env_list("HIPJUDGE_BUDGET_ALERT_THRESHOLDS", ["80", "100"])
if not all(t.isdigit() and 0 < int(t) <= 1000 for t in _thresholds):
    raise ImproperlyConfigured(f"HIPJUDGE_BUDGET_ALERT_THRESHOLDS={_thresholds!r}: expected percents like 80,100")
HIPJUDGE_BUDGET_ALERT_THRESHOLDS = sorted({int(t) for t in _thresholds})
# With no active credit grant, paid pools take no work (true) or run unmetered (false: development).
HIPJUDGE_BILLING_REQUIRE_GRANT = env_bool("HIPJUDGE_BILLING_REQUIRE_GRANT", True)
# Reconciliation books a correction when our cost and the provider's differ by more than this.
HIPJUDGE_RECONCILE_GAP_PCT = env_float("HIPJUDGE_RECONCILE_GAP_PCT", 1.0, minimum=0)
EMAIL_BACKEND = env_str("DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "hipjudge@localhost")

# ---- spend limits (limits/) -------------------------------------------------------------------
# What counts against a user's caps: the VM time charged to their jobs on paid pools (busy time,
# the cold start of a VM started for them, the idle tail after their job; billing/services.py).
# Default monthly spend cap per user on paid pools, in USD ("none": no default cap). A spend
# allowance of the user's own (billing.UserSpendLimit, in the admin) overrides it.
HIPJUDGE_USER_MONTHLY_CAP = env_opt_decimal("HIPJUDGE_USER_MONTHLY_CAP", "20")
# Daily cap (the UTC day) of GPU-seconds per user on paid pools: VM-seconds x the pool's GPUs per VM.
HIPJUDGE_USER_DAILY_GPU_SECONDS = env_opt_int("HIPJUDGE_USER_DAILY_GPU_SECONDS", 3600)
# Seconds of a paid pool's VM that each queued or running submission holds against both caps
# until its time is booked: two submissions at once cannot both pass a cap that only one fits.
HIPJUDGE_CAP_RESERVE_SECONDS = env_int("HIPJUDGE_CAP_RESERVE_SECONDS", 120, minimum=0)

# ---- request throttles (core/throttling.py) -------------------------------------------------
# `<count>/<period>` (s, m, h, d; e.g. 10/15m) or "off". Over a rate: HTTP 429 with Retry-After.
# Sign-in attempts per client address: the login forms (site, admin) and POST /api/v1/auth/token together.
HIPJUDGE_THROTTLE_LOGIN_IP = env_rate("HIPJUDGE_THROTTLE_LOGIN_IP", "30/10m")
# Failed sign-ins per account (username), from any address; a success does not count.
HIPJUDGE_THROTTLE_LOGIN_ACCOUNT = env_rate("HIPJUDGE_THROTTLE_LOGIN_ACCOUNT", "10/15m")
# Sign-up form posts per client address.
HIPJUDGE_THROTTLE_SIGNUP_IP = env_rate("HIPJUDGE_THROTTLE_SIGNUP_IP", "10/h")
# Password reset requests per client address, and per e-mail address asked for (mail flooding).
HIPJUDGE_THROTTLE_RESET_IP = env_rate("HIPJUDGE_THROTTLE_RESET_IP", "10/h")
HIPJUDGE_THROTTLE_RESET_EMAIL = env_rate("HIPJUDGE_THROTTLE_RESET_EMAIL", "3/h")

"""HIPJudge settings: one file, driven by the environment, SQLite and the ORM broker by default.

Every knob is read through config.env, which refuses a malformed value with the variable's name.
`DATABASE_URL` switches to PostgreSQL (or another SQLite file), `REDIS_URL` moves the django-q2
broker to Redis. See README.md for the full list.
"""

from __future__ import annotations

import os
import secrets
from decimal import Decimal
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_opt_str, env_str

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
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served by us, no CDN
    "django_q",
    "fleets",
    "submissions",
    "billing",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.SyncMiddlewareChain",  # last: the chain runs in one thread under ASGI (see there)
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

# ---- database ---------------------------------------------------------------------------------
# SQLite: WAL lets the web process read while a worker writes; IMMEDIATE transactions take the
# write lock up front, so the busy timeout applies instead of an instant "database is locked" when
# two processes upgrade a read transaction at once.
SQLITE_OPTIONS = {
    "timeout": env_int("HIPJUDGE_SQLITE_TIMEOUT", 30, minimum=1),
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
_database_url = env_opt_str("DATABASE_URL")
if _database_url:
    try:
        _db = dict(dj_database_url.parse(
            _database_url,
            # 0: under ASGI every request runs in a thread of its own, where a kept connection leaks.
            conn_max_age=env_int("HIPJUDGE_DB_CONN_MAX_AGE", 0, minimum=0),
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
if IS_POSTGRES and env_bool("HIPJUDGE_DB_POOL", True):
    # A connection pool per process (psycopg_pool): a request borrows one instead of opening one.
    _db["CONN_MAX_AGE"] = 0
    _db["OPTIONS"] = {**dict(_db.get("OPTIONS") or {}), "pool": {  # type: ignore[call-overload]
        "min_size": 1, "max_size": env_int("HIPJUDGE_DB_POOL_SIZE", 16, minimum=1), "timeout": 30}}
if IS_SQLITE:
    _db["OPTIONS"] = {**SQLITE_OPTIONS, **dict(_db.get("OPTIONS") or {})}  # type: ignore[call-overload]
    _db["CONN_MAX_AGE"] = 0 if _db.get("CONN_MAX_AGE") is None else _db["CONN_MAX_AGE"]
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

# ---- auth, API --------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "problem-list"
LOGOUT_REDIRECT_URL = "login"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "rest_framework.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.exceptions.exception_handler",
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
    # The SSE endpoint is a plain async Django view (DRF is sync), so it is described by hand.
    "APPEND_PATHS": {
        "/api/v1/submissions/{id}/events": {"get": {
            "operationId": "submissions_events_stream",
            "summary": "Live events of a submission (Server-Sent Events)",
            "description": "A text/event-stream of the submission's events in order, each with `id: <seq>`, "
                           "`event: <type>` and JSON `data` {seq, type, payload, at}. Reconnect with "
                           "`Last-Event-ID` (or `?after=<seq>`) to resume. An `event: heartbeat` is sent "
                           "when nothing happened for a while; the stream ends after the final RESULT.",
            "tags": ["submissions"],
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}},
                {"name": "after", "in": "query", "required": False, "schema": {"type": "integer"}},
                {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "integer"}},
            ],
            "responses": {"200": {"description": "event stream", "content": {"text/event-stream": {
                "schema": {"type": "string"}}}}, "404": {"description": "not yours, or no such submission"}},
            "security": [{"tokenAuth": []}, {"cookieAuth": []}],
        }},
    },
}

# ---- static files -----------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every request when it is missing
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

DATA_UPLOAD_MAX_MEMORY_SIZE = 512 * 1024  # a source is at most 64 KiB; leave room for form overhead

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("HIPJUDGE_LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# ---- HIPJudge ---------------------------------------------------------------------------------
PROBLEMS_DIR = Path(env_str("HIPJUDGE_PROBLEMS_DIR", str(BASE_DIR / "problems")))
HIPJUDGE_DEFAULT_POOL = env_str("HIPJUDGE_DEFAULT_POOL", "local")
HIPJUDGE_QUOTA_DAILY = env_int("HIPJUDGE_QUOTA_DAILY", 100, minimum=0)
HIPJUDGE_QUOTA_CONCURRENT = env_int("HIPJUDGE_QUOTA_CONCURRENT", 2, minimum=0)
HIPJUDGE_MAX_SOURCE_BYTES = env_int("HIPJUDGE_MAX_SOURCE_BYTES", 64 * 1024, minimum=1)
# Seconds a web process reuses the problem and pool rows it read for a new submission (0: never).
# Edits made in the same process apply at once; edits made elsewhere after at most this long.
HIPJUDGE_LOOKUP_CACHE_TTL = env_float("HIPJUDGE_LOOKUP_CACHE_TTL", 2.0, minimum=0)
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
HIPJUDGE_LOCAL_AGENT_ROOT = Path(env_str("HIPJUDGE_LOCAL_AGENT_ROOT", str(VAR_DIR / "agents")))
# The module run as `python -m <module> serve ...` for local VMs (tests swap in a stand-in).
HIPJUDGE_LOCAL_AGENT_MODULE = env_str("HIPJUDGE_LOCAL_AGENT_MODULE", "agent")
HIPJUDGE_LOCAL_AGENT_START_TIMEOUT = env_float("HIPJUDGE_LOCAL_AGENT_START_TIMEOUT", 30.0, minimum=1)

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
# Default monthly spend cap per user in USD (empty: none); a per-user UserSpendLimit overrides it.
_cap = env_opt_str("HIPJUDGE_USER_MONTHLY_CAP")
try:
    HIPJUDGE_USER_MONTHLY_CAP = Decimal(_cap) if _cap else None
except ArithmeticError:
    raise ImproperlyConfigured(f"HIPJUDGE_USER_MONTHLY_CAP={_cap!r}: expected an amount in USD") from None
# Reconciliation books a correction when our cost and the provider's differ by more than this.
HIPJUDGE_RECONCILE_GAP_PCT = env_float("HIPJUDGE_RECONCILE_GAP_PCT", 1.0, minimum=0)
# Dotted path of a callable returning billing.reconcile.InstanceCostSource for a dstack pool (or None
# to skip it; the default answers None while DSTACK_SERVER_URL is unset).
HIPJUDGE_BILLING_INSTANCE_SOURCE = env_str("HIPJUDGE_BILLING_INSTANCE_SOURCE",
                                           "fleets.dstack_services.billing_instance_source")
# Callables fleets.services.vm_acquire asks before handing out work on a pool (billing: out of credit).
HIPJUDGE_VM_ACQUIRE_GUARDS = ["billing.guards.vm_acquire_guard"]
EMAIL_BACKEND = env_str("DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "hipjudge@localhost")

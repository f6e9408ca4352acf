"""Settings of the test run: the project's own, with a fast password hasher, loose throttles, a
task queue that polls less often and short benchmark cases.

Django's default PBKDF2 is slow by design, at every user created or logged in; MD5 is fine for
throw-away test users. The live servers the integration tests start (uvicorn, qcluster) inherit
DJANGO_SETTINGS_MODULE from pytest-django, so they verify those passwords with the same hasher.

Throttles count in each process's own memory (never a Redis shared with other test runs), at rates
no test reaches unless it tightens one (tests/limits/test_throttles.py).

Under pytest-xdist each worker process has its own test database (pytest-django) and its own task
queue name: on a shared Redis broker a worker's qcluster must never take another worker's tasks. The
servers a test starts get the name through HIPJUDGE_Q_NAME (tests/integration/conftest.py) and are no
xdist workers themselves, so they keep it as it is.
"""

import os

from config.settings import *  # noqa: F403
from config.settings import Q_CLUSTER

if os.environ.get("PYTEST_XDIST_WORKER"):
    Q_CLUSTER["name"] = f"{Q_CLUSTER['name']}-{os.environ['PYTEST_XDIST_WORKER']}"

# An idle qcluster on the ORM broker asks the database for a task every `poll` seconds: polling every
# 0.25 s instead of the default 0.05 s lets the test run's many idle clusters take a fraction of the
# CPU, for at most 0.2 s more before a task starts.
if "HIPJUDGE_Q_POLL" not in os.environ:
    Q_CLUSTER["poll"] = 0.25

# Benchmark and leaderboard jobs of the platform's tests (real agents, through the live servers too)
# time each case for 0.3 s at most instead of the agent's 2 s: what they check is where the figures
# go, not how tight they are (the agent's own tests check the stopping rule).
if "HIPJUDGE_CASE_BUDGET_S" not in os.environ:
    HIPJUDGE_CASE_BUDGET_S = 0.3

# A test reads the problem list right after changing what it shows: no cached rows, unless the test
# asks for them (tests/submissions/test_problem_list_queries.py).
if "HIPJUDGE_PROBLEM_LIST_CACHE_TTL" not in os.environ:
    HIPJUDGE_PROBLEM_LIST_CACHE_TTL = 0.0

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "hipjudge-tests"}}
HIPJUDGE_THROTTLE_LOGIN_IP = HIPJUDGE_THROTTLE_LOGIN_ACCOUNT = HIPJUDGE_THROTTLE_SIGNUP_IP = (100_000, 60)
HIPJUDGE_THROTTLE_RESET_IP = HIPJUDGE_THROTTLE_RESET_EMAIL = (100_000, 60)

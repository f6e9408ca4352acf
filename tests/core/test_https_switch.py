"""HIPJUDGE_HTTPS is the one switch for production HTTPS settings: off by
default (make run serves plain HTTP), and on it sets secure cookies, HSTS, the proxy's HTTPS header
and the redirect, so that `manage.py check --deploy` has nothing to say about them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

NAMES = ["SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER", "SECURE_SSL_REDIRECT",
         "SECURE_HSTS_SECONDS", "SECURE_REFERRER_POLICY"]
# check --deploy's warnings about exactly these settings
DEPLOY_WARNINGS = ["security.W004", "security.W008", "security.W012", "security.W016"]
# Settings are read once per process: each value of the switch gets a fresh one.
PROBE = f"""
import io, json, django
django.setup()
from django.conf import settings
from django.core.management import call_command
report = io.StringIO()
try:
    call_command("check", "--deploy", stdout=report, stderr=report)
except Exception as exc:
    report.write(str(exc))
print(json.dumps({{"settings": {{n: getattr(settings, n) for n in {NAMES!r}}}, "check": report.getvalue()}}))
"""


def probe(https: str | None) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if k != "HIPJUDGE_HTTPS"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    if https is not None:
        env["HIPJUDGE_HTTPS"] = https
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    if done.returncode != 0:
        return {}, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["settings"], found["check"]


def test_the_switch_is_off_by_default() -> None:
    values, report = probe(None)
    assert values["SESSION_COOKIE_SECURE"] is False
    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SECURE_HSTS_SECONDS"] == 0
    assert values["SECURE_PROXY_SSL_HEADER"] is None
    assert all(w in report for w in DEPLOY_WARNINGS)  # what the switch is for


def test_the_switch_sets_every_https_setting() -> None:
    values, report = probe("true")
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] >= 31536000
    assert values["SECURE_REFERRER_POLICY"] == "same-origin"
    assert not [w for w in DEPLOY_WARNINGS if w in report], report


def test_a_malformed_switch_stops_the_process() -> None:
    values, error = probe("maybe")
    assert not values
    assert "HIPJUDGE_HTTPS='maybe'" in error

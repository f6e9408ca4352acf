"""Configuration: a malformed value stops the process with its name, and docs/ documents every
variable the code reads (docs/configuration.md, and the dstack, production, CLI and test pages)."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_opt_str, env_str
from tests.conftest import ROOT, django_process


def test_unset_or_blank_means_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HJ_TEST_BLANK", "  ")
    monkeypatch.delenv("HJ_TEST_UNSET", raising=False)
    assert env_str("HJ_TEST_BLANK", "d") == "d"
    assert env_opt_str("HJ_TEST_UNSET") is None
    assert env_int("HJ_TEST_BLANK", 3) == 3
    assert env_list("HJ_TEST_UNSET", ["a"]) == ["a"]


@pytest.mark.parametrize(("read", "value", "words"), [
    (lambda: env_int("HJ_TEST", 1), "1OO", "HJ_TEST='1OO': expected an integer"),
    (lambda: env_int("HJ_TEST", 1, minimum=1), "0", "HJ_TEST=0: must be at least 1"),
    (lambda: env_int("HJ_TEST", 1, maximum=64), "65", "HJ_TEST=65: must be at most 64"),
    (lambda: env_float("HJ_TEST", 1.0), "nan", "HJ_TEST='nan': expected a number"),
    (lambda: env_bool("HJ_TEST", True), "maybe", "HJ_TEST='maybe': expected one of"),
])
def test_a_malformed_value_names_the_variable(monkeypatch: pytest.MonkeyPatch, read: object, value: str,
                                              words: str) -> None:
    monkeypatch.setenv("HJ_TEST", value)
    with pytest.raises(ImproperlyConfigured, match=re.escape(words)):
        read()  # type: ignore[operator]


def test_a_malformed_setting_stops_the_process_at_start_up() -> None:
    result = django_process("", HIPJUDGE_QUOTA_DAILY="1OO")
    assert result.returncode != 0
    assert "HIPJUDGE_QUOTA_DAILY='1OO': expected an integer" in result.stderr


@pytest.mark.parametrize(("argv", "database_url", "pooled", "kept_s"), [
    (["manage.py", "qcluster"], "postgres://nobody@127.0.0.1:9/none", False, 600),
    (["uvicorn"], "postgres://nobody@127.0.0.1:9/none", True, 0),
    (["manage.py", "qcluster"], "", False, 600),
    (["uvicorn"], "", False, 0),
])
def test_a_worker_cluster_keeps_plain_connections_and_a_web_process_pools_them(
        argv: list[str], database_url: str, pooled: bool, kept_s: int) -> None:
    """django-q2 forks its workers from the cluster process: a pool inherited across the fork hands two
    processes one connection (the ORM broker then found it inside a transaction and took no task). Its
    processes keep their connections instead (django-q2 closes them all before a fork): the ORM
    broker's pusher polls 20 times a second. A web process runs each request in a thread of its own."""
    result = django_process("from django.conf import settings; db = settings.DATABASES['default']; "
                            "print('pool' in db.get('OPTIONS', {}), db['CONN_MAX_AGE'])",
                            tuple(argv), DATABASE_URL=database_url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(pooled), str(kept_s)]


def test_a_database_that_is_away_fails_a_request_in_seconds_and_is_found_again_in_a_second() -> None:
    """With the database away a request waited out the pool's 30 s (issue 32: a quiet GET /me hung
    29 s), and psycopg_pool's exponential backoff kept requests failing up to 23 s after it was back.
    Now: at most 3 s waiting for a pooled connection, 3 s for a new one (libpq), a dead peer noticed by
    keepalives, and a reconnect attempt every second."""
    result = django_process(
        "import django; django.setup(); from django.conf import settings; from psycopg_pool.base import "
        "AttemptWithBackoff as A; o = settings.DATABASES['default']['OPTIONS']; "
        "print(o['pool']['timeout'], o['connect_timeout'], o['keepalives'], A.DELAY_BACKOFF)",
        ("uvicorn",), DATABASE_URL="postgres://nobody@127.0.0.1:9/none")
    assert result.returncode == 0, result.stderr
    pool_timeout, connect_timeout, keepalives, backoff = result.stdout.split()
    assert float(pool_timeout) <= 5
    assert int(connect_timeout) <= 5
    assert keepalives == "1"
    assert float(backoff) == 1


def _variables_read() -> set[str]:
    names: set[str] = set()
    settings = (ROOT / "config" / "settings.py").read_text()
    names |= set(re.findall(r'\benv_[a-z_]+\("([A-Z0-9_]+)"', settings))  # every typed reader of config.env
    packages = [init.parent for init in ROOT.glob("*/__init__.py") if init.parent.name != "tests"]
    for package in packages:
        for path in package.rglob("*.py"):
            names |= set(re.findall(r'(?:os\.environ\.get\(|os\.environ\[|os\.getenv\()"([A-Z0-9_]+)"',
                                    path.read_text()))
    for script in (ROOT / "scripts").glob("*.sh"):
        names |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]*):-", script.read_text()))
    return names - {"XDG_CACHE_HOME", "XDG_CONFIG_HOME"}  # the standard ones, named in the defaults


def test_the_docs_document_every_variable_the_code_reads() -> None:
    docs = "".join(page.read_text() for page in sorted((ROOT / "docs").glob("*.md")))
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", docs))
    names = _variables_read()
    assert len(names) > 50  # the scan found the code's variables
    assert sorted(names - documented) == []

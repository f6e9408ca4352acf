"""Request throttles: sign-in (form and token API together) per address and failed attempts per
account, sign-up per address, password reset per address and per e-mail; 429 with Retry-After and
a sentence (the one error shape in the API). The limiter itself: windows, IPv6 /64s, a failing
cache, and one count across processes sharing Redis."""

from __future__ import annotations

import os
import socket
import sys
import uuid
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.urls import reverse

from core.ratelimit import blocked, client_address, hit
from tests.conftest import ROOT
from tests.support.start_together import start_together

TOKEN_URL = "/api/v1/auth/token"
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def counters() -> None:
    cache.clear()  # the test settings' cache is this process's memory


def token(client: Any, username: str, password: str, address: str = "203.0.113.7") -> Any:
    return client.post(TOKEN_URL, {"username": username, "password": password}, format="json", REMOTE_ADDR=address)


def test_the_token_api_throttles_attempts_per_address_with_429_and_retry_after(owner: Any, settings: Any) -> None:
    from rest_framework.test import APIClient

    settings.HIPJUDGE_THROTTLE_LOGIN_IP = (2, 600)
    client = APIClient()
    assert [token(client, "owner", PASSWORD).status_code for _ in range(2)] == [201, 201]
    refused = token(client, "owner", PASSWORD)
    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    assert 1 <= wait <= 600
    assert refused.json() == {"message": refused.json()["message"], "extra": {"retry_after_s": wait}}
    assert refused.json()["message"].startswith("Too many sign-in attempts from your address; try again in ")
    assert token(client, "owner", PASSWORD, address="198.51.100.9").status_code == 201  # another address


def test_failed_sign_ins_lock_the_account_from_any_address_and_successes_do_not_count(
        owner: Any, other_user: Any, settings: Any) -> None:
    from rest_framework.test import APIClient

    settings.HIPJUDGE_THROTTLE_LOGIN_ACCOUNT = (2, 900)
    client = APIClient()
    for _ in range(3):
        assert token(client, "owner", PASSWORD).status_code == 201
    assert [token(client, "owner", "wrong", address=f"203.0.113.{i}").status_code for i in (1, 2)] == [401, 401]
    refused = token(client, "owner", PASSWORD, address="203.0.113.3")  # even the right password, elsewhere
    assert refused.status_code == 429
    assert refused.json()["message"].startswith("Too many failed sign-ins to this account; try again in ")
    assert token(client, "Owner", PASSWORD).status_code == 429  # names are counted case-blind
    assert token(client, "other", PASSWORD).status_code == 201


def test_the_login_form_shares_the_rates_and_answers_429(client: Any, owner: Any, settings: Any) -> None:
    from rest_framework.test import APIClient

    settings.HIPJUDGE_THROTTLE_LOGIN_ACCOUNT = (2, 900)
    url = reverse("login")
    assert client.post(url, {"username": "owner", "password": "wrong"}).status_code == 200  # the form again
    assert token(APIClient(), "owner", "wrong", address="127.0.0.1").status_code == 401
    refused = client.post(url, {"username": "owner", "password": PASSWORD})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many failed sign-ins to this account" in refused.content.decode()
    assert "_auth_user_id" not in client.session

    settings.HIPJUDGE_THROTTLE_LOGIN_IP = (1, 600)
    cache.clear()
    assert client.post(url, {"username": "owner", "password": PASSWORD}).status_code == 302  # logged in
    client.logout()
    assert client.post(url, {"username": "owner", "password": PASSWORD}).status_code == 429


def test_the_admin_login_form_is_throttled_too(client: Any, staff_user: Any, settings: Any) -> None:
    settings.HIPJUDGE_THROTTLE_LOGIN_ACCOUNT = (1, 900)
    url = reverse("admin:login")
    assert client.post(url, {"username": "staff", "password": "wrong"}).status_code == 200  # the form again
    refused = client.post(url, {"username": "staff", "password": PASSWORD})
    assert refused.status_code == 429
    assert "Too many failed sign-ins to this account" in refused.content.decode()
    assert client.post(url, {"username": "other", "password": "x"}).status_code == 200
    cache.clear()
    assert client.post(url, {"username": "staff", "password": PASSWORD}).status_code == 302  # signed in


def test_sign_up_is_throttled_per_address(client: Any, db: Any, settings: Any) -> None:
    from django.contrib.auth import get_user_model

    settings.HIPJUDGE_THROTTLE_SIGNUP_IP = (2, 3600)
    url = reverse("signup")
    for name in ("ann", "bob"):
        form = {"username": name, "password1": "a long pass phrase", "password2": "a long pass phrase"}
        assert client.post(url, form, REMOTE_ADDR="203.0.113.5").status_code == 302
        client.logout()
    refused = client.post(url, {"username": "eve", "password1": "a long pass phrase",
                                "password2": "a long pass phrase"}, REMOTE_ADDR="203.0.113.5")
    assert refused.status_code == 429
    assert "Too many sign-ups from your address" in refused.content.decode()
    assert not get_user_model().objects.filter(username="eve").exists()


def test_password_reset_is_throttled_per_address_and_per_email(client: Any, owner: Any, mailoutbox: Any,
                                                               settings: Any) -> None:
    owner.email = "owner@example.com"
    owner.save()
    settings.HIPJUDGE_THROTTLE_RESET_EMAIL = (2, 3600)
    url = reverse("password_reset")
    answers = [client.post(url, {"email": "Owner@Example.com "}, REMOTE_ADDR=f"203.0.113.{i}").status_code
               for i in range(4)]
    assert answers == [302, 302, 429, 429]
    assert len(mailoutbox) == 2  # the inbox got two mails, not four

    settings.HIPJUDGE_THROTTLE_RESET_IP = (1, 3600)
    assert client.post(url, {"email": "x@example.com"}, REMOTE_ADDR="198.51.100.1").status_code == 302
    refused = client.post(url, {"email": "y@example.com"}, REMOTE_ADDR="198.51.100.1")
    assert refused.status_code == 429
    assert "password reset requests from your address" in refused.content.decode()


def test_a_rate_switched_off_never_throttles(owner: Any, settings: Any) -> None:
    from rest_framework.test import APIClient

    settings.HIPJUDGE_THROTTLE_LOGIN_IP = None
    settings.HIPJUDGE_THROTTLE_LOGIN_ACCOUNT = None
    client = APIClient()
    assert {token(client, "owner", "wrong").status_code for _ in range(30)} == {401}


# ---- the limiter -------------------------------------------------------------------------------
def test_a_window_allows_its_count_then_says_when_it_ends() -> None:
    start = 1_000_000_200.0  # a 600 s window starts here
    window_end = (start // 600 + 1) * 600
    assert [hit("t", "k", (3, 600), now=start + i) for i in range(3)] == [None, None, None]
    assert hit("t", "k", (3, 600), now=start + 10) == int(window_end - start - 10)
    assert blocked("t", "k", (3, 600), now=start + 10) == int(window_end - start - 10)
    assert hit("t", "k", (3, 600), now=window_end) is None  # a new window
    assert blocked("t", "other", (3, 600), now=start) is None


@pytest.mark.parametrize(("remote", "counted_as"), [
    ("203.0.113.7", "203.0.113.7"), ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("::ffff:203.0.113.7", "203.0.113.7"), ("", ""), ("not-an-ip", "not-an-ip")])
def test_clients_are_counted_by_address_and_ipv6_by_its_64(rf: Any, remote: str, counted_as: str) -> None:
    assert client_address(rf.get("/", REMOTE_ADDR=remote)) == counted_as


def test_a_failing_cache_lets_requests_through_and_says_so(monkeypatch: Any, caplog: Any) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "add", broken)
    monkeypatch.setattr(cache, "get", broken)
    assert hit("t", "k", (1, 60)) is None
    assert hit("t", "k", (1, 60)) is None
    assert blocked("t", "k", (1, 60)) is None
    assert "the cache failed; letting the request through" in caplog.text


def _redis_answers() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        return False
    return True


COUNTER = r"""
import sys
import django
django.setup()
from core.ratelimit import hit
print("ready", flush=True); sys.stdin.readline()  # tests.support.start_together
print(sum(hit("cross-process", "one-client", (25, 86400)) is None for _ in range(20)))
"""


@pytest.mark.integration
@pytest.mark.skipif(not _redis_answers(), reason="needs Redis on 127.0.0.1:6379")
def test_processes_sharing_redis_count_together(tmp_path: Any) -> None:
    import redis

    prefix = f"hipjudge-test-{uuid.uuid4().hex[:12]}"  # this run's keys only, in a Redis others share
    url = "redis://127.0.0.1:6379/9"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "HIPJUDGE_CACHE_URL": url,
           "HIPJUDGE_CACHE_PREFIX": prefix, "HIPJUDGE_VAR_DIR": str(tmp_path), "DATABASE_URL": "",
           "DJANGO_SECRET_KEY": django_settings.SECRET_KEY}
    procs = start_together([[sys.executable, "-c", COUNTER] for _ in range(2)], cwd=ROOT, env=env)
    try:
        outputs = [proc.communicate(timeout=60) for proc in procs]
    finally:
        for key in redis.Redis.from_url(url).scan_iter(f"{prefix}:*"):
            redis.Redis.from_url(url).delete(key)
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outputs]
    assert sum(int(out.strip().splitlines()[-1]) for out, _ in outputs) == 25  # of 40 hits, in two processes

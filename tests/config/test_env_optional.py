"""The typed environment readers of the limits' settings: amounts, counts and rates that can be
switched off, and a loud error naming the variable for anything else."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_opt_decimal, env_opt_int, env_rate


@pytest.mark.parametrize(("raw", "expected"), [
    (None, Decimal("20")), ("", Decimal("20")), ("12.50", Decimal("12.50")), ("0", Decimal(0)), ("none", None),
    ("OFF", None)])
def test_an_optional_amount(monkeypatch: Any, raw: str | None, expected: Decimal | None) -> None:
    if raw is not None:
        monkeypatch.setenv("HJ_TEST_CAP", raw)
    assert env_opt_decimal("HJ_TEST_CAP", "20") == expected


@pytest.mark.parametrize("raw", ["-1", "twenty", "NaN", "Infinity"])
def test_a_bad_amount_stops_with_the_variables_name(monkeypatch: Any, raw: str) -> None:
    monkeypatch.setenv("HJ_TEST_CAP", raw)
    with pytest.raises(ImproperlyConfigured, match="HJ_TEST_CAP"):
        env_opt_decimal("HJ_TEST_CAP", "20")


@pytest.mark.parametrize(("raw", "expected"), [(None, 3600), ("60", 60), ("none", None)])
def test_an_optional_count(monkeypatch: Any, raw: str | None, expected: int | None) -> None:
    if raw is not None:
        monkeypatch.setenv("HJ_TEST_SECONDS", raw)
    assert env_opt_int("HJ_TEST_SECONDS", 3600) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("10/15m", (10, 900)), ("30/h", (30, 3600)), ("5/30s", (5, 30)), ("100/d", (100, 86400)), ("3 / 2h", (3, 7200)),
    ("off", None)])
def test_a_rate(monkeypatch: Any, raw: str, expected: tuple[int, int] | None) -> None:
    monkeypatch.setenv("HJ_TEST_RATE", raw)
    assert env_rate("HJ_TEST_RATE", "1/s") == expected


@pytest.mark.parametrize("raw", ["10", "10/", "0/m", "10/0m", "10/00m", "ten/m", "10/week", "-1/m"])
def test_a_bad_rate_stops_with_the_variables_name(monkeypatch: Any, raw: str) -> None:
    monkeypatch.setenv("HJ_TEST_RATE", raw)
    with pytest.raises(ImproperlyConfigured, match="HJ_TEST_RATE"):
        env_rate("HJ_TEST_RATE", "1/s")

"""Typed readers for environment variables that fail loudly on a bad value.

A typo in production configuration (`HIPJUDGE_QUOTA_DAILY=1OO`) must stop the process at start-up
with the variable's name in the message, not fall back to a default nobody chose.
"""

from __future__ import annotations

import os
import re
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_NONE = {"none", "off"}  # an optional limit switched off
_RATE = re.compile(r"(\d+)\s*/\s*(\d*)\s*([smhd])")
_PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def env_str(name: str, default: str) -> str:
    value = _raw(name)
    return default if value is None else value


def env_opt_str(name: str) -> str | None:
    return _raw(name)


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r}: expected one of {sorted(_TRUE | _FALSE)}")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r}: expected an integer") from None
    _check_range(name, number, minimum, maximum)
    return number


def env_float(name: str, default: float, *, minimum: float | None = None,
              maximum: float | None = None) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r}: expected a number") from None
    if number != number:  # NaN
        raise ImproperlyConfigured(f"{name}={value!r}: expected a number")
    _check_range(name, number, minimum, maximum)
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_opt_decimal(name: str, default: str | None) -> Decimal | None:
    """A non-negative amount, or None when the variable (or the default) says `none` / `off`."""
    value = _raw(name) or default
    if value is None or value.lower() in _NONE:
        return None
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise ImproperlyConfigured(f"{name}={value!r}: expected an amount or 'none'") from None
    if not number.is_finite() or number < 0:
        raise ImproperlyConfigured(f"{name}={value!r}: expected an amount of at least 0 or 'none'")
    return number


def env_opt_int(name: str, default: int | None) -> int | None:
    """A non-negative integer, or None when the variable says `none` / `off` (or the default is None)."""
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _NONE:
        return None
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r}: expected an integer or 'none'") from None
    _check_range(name, number, 0, None)
    return number


def env_rate(name: str, default: str) -> tuple[int, int] | None:
    """A rate `<count>/<period>` as (count, seconds): `10/15m`, `30/h`, `5/30s`, `100/d`; `off`: None."""
    value = _raw(name) or default
    if value.lower() in _NONE:
        return None
    match = _RATE.fullmatch(value)
    if match is None or int(match.group(1)) < 1 or int(match.group(2) or 1) < 1:
        raise ImproperlyConfigured(f"{name}={value!r}: expected a rate like 10/15m (count/period in s, m, h or d) "
                                   "or 'off'")
    return int(match.group(1)), int(match.group(2) or 1) * _PERIOD_SECONDS[match.group(3)]


def _check_range(name: str, number: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number}: must be at least {minimum}")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name}={number}: must be at most {maximum}")

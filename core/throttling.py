"""The request throttles: sign-in (the login form and POST /api/v1/auth/token together), sign-up
and password reset, per client address and per account where there is one. Rates come from
settings (HIPJUDGE_THROTTLE_*); over one, the answer is 429 with Retry-After and a sentence.

The views call these policies; the API's token endpoint uses them through `SignInThrottle`, a DRF
throttle that raises DRF's Throttled (the one error shape, Retry-After set by DRF's handler).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from rest_framework.exceptions import Throttled
from rest_framework.throttling import BaseThrottle

from core.ratelimit import blocked, client_address, hit
from core.units import format_duration


@dataclass(frozen=True)
class Throttle:
    message: str
    retry_after: int


def _throttle(what: str, wait: int | None) -> Throttle | None:
    if wait is None:
        return None
    return Throttle(f"Too many {what}; try again in {format_duration(wait)}.", wait)


def signin_refusal(*, address: str, username: str) -> Throttle | None:
    """Counts this sign-in attempt of `address`; refuses it when the address is over its rate or the
    account already had its rate of failed attempts (counted by `signin_failed`)."""
    return (_throttle("sign-in attempts from your address", hit("signin-ip", address,
                                                                settings.HIPJUDGE_THROTTLE_LOGIN_IP))
            or _throttle("failed sign-ins to this account", blocked("signin-account", username.casefold(),
                                                                    settings.HIPJUDGE_THROTTLE_LOGIN_ACCOUNT)))


def signin_failed(*, username: str) -> None:
    hit("signin-account", username.casefold(), settings.HIPJUDGE_THROTTLE_LOGIN_ACCOUNT)


def signup_refusal(*, address: str) -> Throttle | None:
    return _throttle("sign-ups from your address", hit("signup-ip", address, settings.HIPJUDGE_THROTTLE_SIGNUP_IP))


def password_reset_refusal(*, address: str, email: str) -> Throttle | None:
    return (_throttle("password reset requests from your address",
                      hit("reset-ip", address, settings.HIPJUDGE_THROTTLE_RESET_IP))
            or _throttle("password reset e-mails to this address",
                         hit("reset-email", email.strip().casefold(), settings.HIPJUDGE_THROTTLE_RESET_EMAIL)))


class SignInThrottle(BaseThrottle):
    """POST /api/v1/auth/token: the sign-in rates of the login form (per address, and failed
    attempts per account); the view reports failures with `signin_failed`."""

    def allow_request(self, request: Any, view: Any) -> bool:
        data = request.data
        username = str(data.get("username") or "") if isinstance(data, Mapping) else ""
        refusal = signin_refusal(address=client_address(request), username=username)
        if refusal is not None:
            raise Throttled(wait=refusal.retry_after, detail=refusal.message)
        return True

"""Money and time as the ledger keeps them: Decimal USD with 6 places, exact seconds."""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal

MICRO = Decimal("0.000001")
ZERO = Decimal("0.000000")


def quantize_usd(value: Decimal) -> Decimal:
    """An amount rounded to the ledger's 6 places (banker's rounding)."""
    return value.quantize(MICRO, rounding=ROUND_HALF_EVEN)


def seconds_between(start: datetime, end: datetime) -> Decimal:
    delta = end - start
    return Decimal(delta.days * 86400 + delta.seconds) + Decimal(delta.microseconds) / Decimal(1_000_000)


def cost_of(seconds: Decimal, rate_per_hour: Decimal) -> Decimal:
    return quantize_usd(seconds * rate_per_hour / Decimal(3600))

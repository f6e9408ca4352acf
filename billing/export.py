"""The ledger as a CSV file for accounting: one row per ledger entry of a calendar month (UTC).

An entry belongs to the month its period starts in; corrections (reconciliation, adjustments) are
rows like any other, so the month's rows add up to what the ledger says the month cost. Amounts and
seconds are the ledger's Decimals written out exactly (6 places, never through a float).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Protocol

from billing.models import LedgerEntry

# The columns, in order (docs/operations.md documents them).
HEADER = ("entry_id", "created_at", "period_start", "period_end", "source", "phase", "pool", "vm", "submission",
          "user_id", "username", "seconds", "rate_per_hour_usd", "rate_source", "amount_usd", "note")
MONTH = re.compile(r"(\d{4})-(\d{2})")


class Writable(Protocol):
    def write(self, text: str, /) -> object: ...


def month_bounds(month: str) -> tuple[datetime, datetime]:
    """[first instant, first instant of the next month) of `YYYY-MM` in UTC; ValueError otherwise."""
    match = MONTH.fullmatch(month.strip())
    if match is None or not 1 <= int(match.group(2)) <= 12:
        raise ValueError(f"{month!r} is not a month; expected YYYY-MM, e.g. 2026-11")
    year, number = int(match.group(1)), int(match.group(2))
    start = datetime(year, number, 1, tzinfo=UTC)
    end = datetime(year + number // 12, number % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def ledger_month_rows(*, month: str) -> Iterator[tuple[str, ...]]:
    start, end = month_bounds(month)
    entries = (LedgerEntry.objects.filter(period_start__gte=start, period_start__lt=end)
               .order_by("period_start", "created_at", "id")
               .values_list("id", "created_at", "period_start", "period_end", "source", "phase", "pool__name",
                            "vm_id", "submission_id", "user_id", "user__username", "seconds", "rate_per_hour",
                            "rate_source", "amount", "note"))
    for entry in entries.iterator(chunk_size=2000):
        yield tuple(_text(value) for value in entry)


def ledger_export_csv(*, month: str, out: Writable) -> tuple[int, Decimal]:
    """Write the month's entries as CSV (header first) to `out`; returns (rows, total USD)."""
    writer = csv.writer(out)
    writer.writerow(HEADER)
    count, total = 0, Decimal(0)
    amount_at = HEADER.index("amount_usd")
    for row in ledger_month_rows(month=month):
        writer.writerow(row)
        count += 1
        total += Decimal(row[amount_at])
    return count, total

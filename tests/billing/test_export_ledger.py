"""`manage.py export_ledger --month`: one CSV row per ledger entry of the month, amounts exact."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from billing.export import HEADER, month_bounds
from billing.models import LedgerEntry, Phase, Source
from billing.services import ledger_adjust
from fleets.models import VMInstance

pytestmark = pytest.mark.django_db
NOV = datetime(2026, 11, 1, tzinfo=UTC)


def book(pool: Any, start: datetime, amount: str, **fields: Any) -> LedgerEntry:
    return LedgerEntry.objects.create(pool=pool, period_start=start, period_end=start + timedelta(seconds=1),
                                      seconds=Decimal("1.000001"), rate_per_hour=Decimal("1.990000"),
                                      rate_source="fleet", amount=Decimal(amount), phase=Phase.BUSY, **fields)


def export(month: str) -> list[dict[str, str]]:
    out = io.StringIO()
    call_command("export_ledger", "--month", month, stdout=out)
    reader = csv.reader(io.StringIO(out.getvalue()))
    header = next(reader)
    assert tuple(header) == HEADER
    return [dict(zip(header, row, strict=True)) for row in reader]


def test_one_row_per_entry_of_the_month_with_exact_amounts(local_pool: Any, owner: Any) -> None:
    vm = VMInstance.objects.create(pool=local_pool)
    first = book(local_pool, NOV, "0.000001", vm=vm, user=owner)
    book(local_pool, NOV + timedelta(days=12), "123456789.123456", vm=vm)
    book(local_pool, NOV - timedelta(microseconds=1), "5.000000")  # October
    book(local_pool, datetime(2026, 12, 1, tzinfo=UTC), "7.000000")  # December
    ledger_adjust(pool=local_pool, amount=Decimal("-12.345678"), note='reconciled, "dstack" said so',
                  period_start=NOV + timedelta(days=20), period_end=NOV + timedelta(days=21))
    rows = export("2026-11")
    assert [row["amount_usd"] for row in rows] == ["0.000001", "123456789.123456", "-12.345678"]
    assert sum(Decimal(row["amount_usd"]) for row in rows) == Decimal("123456776.777779")
    row = rows[0]
    assert row["entry_id"] == str(first.pk)
    assert row["period_start"] == "2026-11-01T00:00:00+00:00"
    assert (row["pool"], row["vm"], row["user_id"], row["username"]) == ("local", str(vm.pk), str(owner.pk), "owner")
    assert (row["seconds"], row["rate_per_hour_usd"], row["source"], row["phase"]) == (
        "1.000001", "1.990000", Source.ACCRUAL, Phase.BUSY)
    correction = rows[2]
    assert (correction["note"], correction["source"], correction["vm"]) == (
        'reconciled, "dstack" said so', Source.ADJUSTMENT, "")
    assert export("2026-10")[0]["amount_usd"] == "5.000000"
    assert export("2026-12")[0]["amount_usd"] == "7.000000"


def test_it_writes_a_file(local_pool: Any, tmp_path: Path) -> None:
    book(local_pool, NOV, "1.500000")
    path = tmp_path / "ledger-2026-11.csv"
    call_command("export_ledger", "--month", "2026-11", "--output", str(path))
    assert path.read_text().splitlines()[1].endswith(",1.500000,")


@pytest.mark.parametrize("month", ["2026-13", "2026-1", "November", "2026-11-01", ""])
def test_a_bad_month_is_refused_with_the_format(month: str) -> None:
    with pytest.raises(CommandError, match="expected YYYY-MM"):
        call_command("export_ledger", "--month", month, stdout=io.StringIO())


def test_december_ends_at_the_new_year() -> None:
    assert month_bounds("2026-12") == (datetime(2026, 12, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))

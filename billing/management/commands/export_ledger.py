"""`manage.py export_ledger --month YYYY-MM [--output FILE]`: the month's ledger as CSV for accounting."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from billing.export import HEADER, ledger_export_csv, month_bounds


class Command(BaseCommand):
    help = ("Write one CSV row per ledger entry whose period starts in the month (UTC), amounts exact. "
            f"Columns: {', '.join(HEADER)}.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", required=True, help="YYYY-MM (UTC)")
        parser.add_argument("--output", help="a file to write (default: standard output)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            month_bounds(opts["month"])
        except ValueError as exc:
            raise CommandError(f"--month: {exc}") from None
        if opts["output"]:
            path = Path(opts["output"])
            with open(path, "w", newline="", encoding="utf-8") as out:
                count, total = ledger_export_csv(month=opts["month"], out=out)
            where = str(path)
        else:
            count, total = ledger_export_csv(month=opts["month"], out=self.stdout)
            where = "standard output"
        sys.stderr.write(f"export_ledger: {count} entries of {opts['month']}, {total} USD, to {where}\n")

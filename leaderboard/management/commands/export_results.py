"""`manage.py export_results [--problem SLUG] [--pool NAME] [--output FILE]`: the ranked results as JSON Lines."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ApplicationError
from leaderboard.results_export import ranked_results_export


class Command(BaseCommand):
    help = ("Write one JSON line per ranked result shown on a leaderboard (score, interval, speedup, cases); "
            "the source and the submission id only where its author made the source public.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--problem", help="only this problem's results (a slug)")
        parser.add_argument("--pool", help="only this pool's results")
        parser.add_argument("--output", help="a file to write (default: standard output)")

    def handle(self, *args: Any, **opts: Any) -> None:
        filters = {"problem": opts["problem"], "pool": opts["pool"]}
        try:
            if opts["output"]:
                with open(opts["output"], "w", encoding="utf-8") as out:
                    count = ranked_results_export(out=out, **filters)
                where = opts["output"]
            else:
                count = ranked_results_export(out=self.stdout, **filters)
                where = "standard output"
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        except OSError as exc:
            raise CommandError(f"--output: {exc}") from None
        sys.stderr.write(f"export_results: {count} ranked result(s) to {where}\n")

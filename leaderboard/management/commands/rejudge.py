"""`manage.py rejudge (--submission ID ... | --user NAME | --problem SLUG) --reason TEXT [--by STAFF]`."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ApplicationError
from leaderboard.rejudge import submissions_rejudge


class Command(BaseCommand):
    help = ("Judge submissions again against their problem's current version, in the queue's background class. "
            "--user / --problem take their judged leaderboard submissions (both: that user's on that problem); "
            "--submission takes any submission, and may be given several times.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--submission", action="append", default=[], metavar="ID", help="a submission id")
        parser.add_argument("--user", help="a username")
        parser.add_argument("--problem", help="a problem slug")
        parser.add_argument("--reason", required=True, help="why (the owners read it in the history)")
        parser.add_argument("--by", help="the staff username to record as asking (default: none)")

    def handle(self, *args: Any, **opts: Any) -> None:
        by = None
        if opts["by"]:
            by = get_user_model().objects.filter(username=opts["by"], is_staff=True).first()
            if by is None:
                raise CommandError(f"--by: there is no staff user {opts['by']!r}")
        try:
            report = submissions_rejudge(by=by, reason=opts["reason"], submission_ids=opts["submission"],
                                         username=opts["user"], problem=opts["problem"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"queued {len(report.queued)} rejudge(s)")
        for queued in report.queued:
            self.stdout.write(f"  {queued}")
        for skipped, why in report.skipped.items():
            self.stdout.write(f"skipped {skipped}: {why}")

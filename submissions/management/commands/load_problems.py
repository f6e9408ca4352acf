from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from submissions.catalogue import problems_load


class Command(BaseCommand):
    help = "Load every problems/<slug>/ bundle; new content becomes a new problem version."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--root", type=Path, default=None, help="default: settings.PROBLEMS_DIR")
        parser.add_argument("--keep-missing", action="store_true",
                            help="do not retire problems whose folder is gone")

    def handle(self, *args: Any, **opts: Any) -> None:
        root = opts["root"] or settings.PROBLEMS_DIR
        if not Path(root).is_dir():
            raise CommandError(f"{root}: not a folder")
        report = problems_load(root=root, retire_missing=not opts["keep_missing"])
        for label in ("created", "updated", "unchanged", "retired"):
            slugs = getattr(report, label)
            if slugs:
                self.stdout.write(f"{label}: {', '.join(slugs)}")
        for slug, error in report.errors.items():
            self.stderr.write(f"error: {slug}: {error}")
        if report.errors:
            raise CommandError(f"{len(report.errors)} problem(s) could not be loaded")

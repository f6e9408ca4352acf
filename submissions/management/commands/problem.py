from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from submissions.authoring.check import DEFAULT_SEEDS, DEVICES, Row, available_devices, check_problem, format_table
from submissions.authoring.local_agent import AgentUnavailable, LocalAgent
from submissions.authoring.skeleton import AuthoringError, new_problem


def default_workdir() -> Path:
    # Kept between runs: an unchanged solution is not compiled again, the emulator not rebuilt.
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hipjudge" / "problem-check"


class Command(BaseCommand):
    help = ("Problem authoring (docs/authoring.md): `new SLUG` writes a working skeleton bundle; "
            "`check SLUG... | --all` judges each bundle's solutions on every device this machine has.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--root", type=Path, default=None, help="the problems folder (default: PROBLEMS_DIR)")
        actions = parser.add_subparsers(dest="action", required=True)
        new = actions.add_parser("new", help="write problems/SLUG/ from the skeleton")
        new.add_argument("slug")
        new.add_argument("--title", default=None, help="default: the slug's words, capitalized")
        check = actions.add_parser("check", help="run every solution through the real judge")
        check.add_argument("slugs", nargs="*", metavar="SLUG")
        check.add_argument("--all", action="store_true", help="every problem under the root")
        check.add_argument("--device", action="append", choices=DEVICES, default=None,
                           help="only this device (repeatable; default: every device this machine has)")
        check.add_argument("--seeds", type=int, default=len(DEFAULT_SEEDS),
                           help=f"input draws for the host cpp solution (default {len(DEFAULT_SEEDS)})")
        check.add_argument("--workdir", type=Path, default=None,
                           help="the checking agent's folder (default: ~/.cache/hipjudge/problem-check)")

    def handle(self, *args: Any, **opts: Any) -> None:
        root = Path(opts["root"] or settings.PROBLEMS_DIR)
        if not root.is_dir():
            raise CommandError(f"{root}: not a folder")
        if opts["action"] == "new":
            self._new(root, opts["slug"], opts["title"])
        else:
            self._check(root, opts)

    def _new(self, root: Path, slug: str, title: str | None) -> None:
        try:
            folder = new_problem(root, slug, title)
        except AuthoringError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"wrote {folder}/: edit it, then `manage.py problem check {slug}` (docs/authoring.md)")

    def _check_with(self, agent: LocalAgent, folders: list[Path], opts: dict[str, Any]) -> list[Row]:
        here = available_devices(agent)
        devices = [d for d in here if opts["device"] is None or d in opts["device"]]
        missing = sorted(set(opts["device"] or ()) - set(here))
        if missing:
            raise CommandError(f"this machine cannot check on {', '.join(missing)} (it has {', '.join(here)})")
        self.stderr.write(f"checking {len(folders)} problem(s) on {', '.join(devices)}")
        rows = []
        for folder in folders:
            found = check_problem(folder, agent, devices, tuple(range(1, opts["seeds"] + 1)))
            for row in found:  # as they come: a check of the whole catalogue takes minutes
                self.stderr.write(f"  {row.problem} {row.device} {row.solution}: {row.got} ({row.seconds:.1f} s)")
            rows += found
        return rows

    def _check(self, root: Path, opts: dict[str, Any]) -> None:
        if opts["all"] == bool(opts["slugs"]):
            raise CommandError("name the problems to check, or --all (not both)")
        if opts["seeds"] < 1:
            raise CommandError("--seeds: at least 1")
        folders = sorted(d for d in root.iterdir() if (d / "problem.yaml").is_file()) if opts["all"] else \
            [root / slug for slug in opts["slugs"]]
        absent = [f.name for f in folders if not f.is_dir()]
        if absent:
            raise CommandError(f"no such problem under {root}: {', '.join(absent)}")
        try:
            with LocalAgent(opts["workdir"] or default_workdir()) as agent:  # an agent like the pool's
                rows = self._check_with(agent, folders, opts)
        except AgentUnavailable as exc:
            raise CommandError(f"the checking agent: {exc}") from exc
        self.stdout.write(format_table(rows))
        surprises = [f"{r.problem} ({r.device}, {r.solution})" for r in rows if r.surprise]
        if surprises:
            raise CommandError(f"{len(surprises)} surprise(s): {', '.join(surprises)}")

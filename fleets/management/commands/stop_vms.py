from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from fleets.selectors import pool_get
from fleets.services import vms_stop_all, vms_stop_local_here


class Command(BaseCommand):
    help = "Tear down every live VM (of one pool): agent processes of the local backend, dstack runs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fleet", default=None)
        parser.add_argument("--here", action="store_true",
                            help="only the local pools' VMs whose agents run on this machine (a worker host stops)")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["here"]:
            self.stdout.write(f"stopped {vms_stop_local_here()} local VM(s) of this machine")
            return
        pool = None
        if opts["fleet"]:
            pool = pool_get(name=opts["fleet"])
            if pool is None:
                raise CommandError(f"no pool named {opts['fleet']!r}")
        self.stdout.write(f"stopped {vms_stop_all(pool=pool)} VM(s)")

"""Create or update the local pool `make run` uses: agent processes on this machine, free."""

from __future__ import annotations

import shutil
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from fleets.models import Backend
from fleets.services import fleet_ensure


class Command(BaseCommand):
    help = "Create or update the local pool (backend local, device host by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", default="local")
        parser.add_argument("--device", default="host", choices=("host", "hip", "cuda"))
        parser.add_argument("--max-vms", type=int, default=2)
        parser.add_argument("--idle-timeout", type=int, default=600, help="seconds")
        parser.add_argument("--insecure-no-sandbox", action="store_true",
                            help="run user code without bubblewrap (only for code you trust)")

    def handle(self, *args: Any, **opts: Any) -> None:
        config: dict[str, Any] = {"insecure_no_sandbox": True} if opts["insecure_no_sandbox"] else {}
        # Kernels for a GPU this machine lacks can still be compile-checked where the compiler is here.
        compilers = {"hip": "hipcc", "cuda": "nvcc"}
        config["compile_only_languages"] = [lang for lang, cc in compilers.items()
                                            if lang != opts["device"] and shutil.which(cc)]
        fleet, created = fleet_ensure(
            name=opts["name"], backend=Backend.LOCAL, device=opts["device"], max_vms=opts["max_vms"],
            idle_timeout_s=opts["idle_timeout"], provision_timeout_s=120, config=config,
            title=f"This machine ({opts['device']})",
        )
        self.stdout.write(f"{'created' if created else 'updated'} pool {fleet.name}: local {fleet.device}, "
                          f"max {fleet.max_vms} VMs, idle timeout {fleet.idle_timeout_s} s"
                          + (f", compile-checks {', '.join(config['compile_only_languages'])}"
                             if config["compile_only_languages"] else ""))
        if not opts["insecure_no_sandbox"] and shutil.which("bwrap") is None:
            self.stderr.write("warning: bubblewrap (bwrap) is not installed: local agents will refuse to "
                              "start. Install it, or pass --insecure-no-sandbox for trusted code only.")

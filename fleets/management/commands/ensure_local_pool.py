"""Create or update the local pool `make run` uses: agent processes on this machine, free."""

from __future__ import annotations

import importlib.util
import shutil
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from fleets.backends.local import LOCAL_PROVISION_TIMEOUT_S, HealthProbeError, local_agent_health
from fleets.models import EMULABLE_LANGUAGES, Backend, Pool
from fleets.services import pool_ensure


class Command(BaseCommand):
    help = "Create or update the local pool (backend local, device host by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", default="local")
        parser.add_argument("--device", default="host", choices=("host", "hip", "cuda"))
        parser.add_argument("--max-vms", type=int, default=2)
        parser.add_argument("--idle-timeout", type=int, default=600, help="seconds")
        parser.add_argument("--insecure-no-sandbox", action="store_true",
                            help="run user code without bubblewrap (only for code you trust)")
        parser.add_argument("--emulated-languages", default="auto", metavar="auto|none|hip,cuda",
                            help="languages checked on the agent's emulated device (CPU) in mode check; "
                                 "auto (default): those the local agent reports")

    def handle(self, *args: Any, **opts: Any) -> None:
        config: dict[str, Any] = {"insecure_no_sandbox": True} if opts["insecure_no_sandbox"] else {}
        # Kernels for a GPU this machine lacks can still be compile-checked where the compiler is here.
        compilers = {"hip": "hipcc", "cuda": "nvcc"}
        config["compile_only_languages"] = [lang for lang, cc in compilers.items()
                                            if lang != opts["device"] and shutil.which(cc)]
        if importlib.util.find_spec("triton") is not None:  # Triton compiles for gfx942 and sm_90 anywhere
            config["compile_only_languages"].append("triton")
        chosen = self._chosen_emulated(opts["emulated_languages"])
        config["emulated_languages"] = [] if chosen is None else chosen
        pool, created = pool_ensure(
            name=opts["name"], backend=Backend.LOCAL, device=opts["device"], max_vms=opts["max_vms"],
            idle_timeout_s=opts["idle_timeout"], provision_timeout_s=LOCAL_PROVISION_TIMEOUT_S, config=config,
            title=f"This machine ({opts['device']})",
        )
        if chosen is None:  # auto: what this machine's agent reports, asked with the pool's own settings
            pool.config["emulated_languages"] = self._reported_emulated(pool)
            pool.save(update_fields=["config", "updated_at"])
        self.stdout.write(f"{'created' if created else 'updated'} pool {pool.name}: local {pool.device}, "
                          f"max {pool.max_vms} VMs, idle timeout {pool.idle_timeout_s} s"
                          + (f", checks {', '.join(pool.emulated_languages)} on the emulated device (CPU)"
                             if pool.emulated_languages else "")
                          + (f", compile-checks {', '.join(pool.compile_only_languages)}"
                             if pool.compile_only_languages else ""))
        if not opts["insecure_no_sandbox"] and shutil.which("bwrap") is None:
            self.stderr.write("warning: bubblewrap (bwrap) is not installed: local agents will refuse to "
                              "start. Install it, or pass --insecure-no-sandbox for trusted code only.")

    @staticmethod
    def _chosen_emulated(value: str) -> list[str] | None:
        """None for auto; else the languages named (none: no emulation)."""
        if value == "auto":
            return None
        named = [] if value == "none" else [v.strip() for v in value.split(",") if v.strip()]
        unknown = [v for v in named if v not in EMULABLE_LANGUAGES]
        if unknown:
            raise CommandError(f"--emulated-languages: {', '.join(unknown)} cannot be emulated; "
                               f"give auto, none or some of {', '.join(EMULABLE_LANGUAGES)}.")
        return named

    def _reported_emulated(self, pool: Pool) -> list[str]:
        try:
            reported = local_agent_health(pool=pool).get("emulated")
        except HealthProbeError as exc:
            self.stderr.write(f"warning: no emulated checks on pool {pool.name}: {exc}")
            return []
        if not isinstance(reported, list):
            self.stderr.write(f"warning: no emulated checks on pool {pool.name}: this agent has no emulated "
                              "device (its health report names none)")
            return []
        languages = [lang for lang in EMULABLE_LANGUAGES if lang in reported]
        if not languages:
            self.stderr.write(f"warning: no emulated checks on pool {pool.name}: the local agent reports none "
                              "(g++ or the emulator's build is unavailable)")
        return languages

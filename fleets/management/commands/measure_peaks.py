"""Measure this machine's peaks for a host pool's speed of light (agent.protocol.measure_peaks), and with
--save store them on the pool (peak_gbps, peak_gflops and peak_gflops_by_type)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.protocol import measure_peaks
from fleets.models import Device, Pool


class Command(BaseCommand):
    help = ("Measure this machine's memory bandwidth and fp32/fp64 compute (NumPy) for a host pool whose agents run "
            "here; --save stores them on the pool.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pool", default="local")
        parser.add_argument("--save", action="store_true", help="store the figures on the pool")
        parser.add_argument("--size-mib", type=int, default=256, help="the copied buffer (past the caches)")
        parser.add_argument("--n", type=int, default=2048, help="the matrix size of the products")
        parser.add_argument("--seconds", type=float, default=1.0, help="time spent on each measurement")

    def handle(self, *args: Any, **opts: Any) -> None:
        pool = Pool.objects.filter(name=opts["pool"]).first()
        if pool is None:
            raise CommandError(f"no pool {opts['pool']!r}")
        if pool.device != Device.HOST:
            raise CommandError(f"pool {pool.name!r} runs on {pool.device}: its peaks are its GPU's (the defaults, "
                               "or set them in the admin), not this machine's")
        if opts["size_mib"] < 1 or opts["n"] < 16 or opts["seconds"] <= 0:
            raise CommandError("--size-mib must be at least 1, --n at least 16, --seconds positive")
        peaks = measure_peaks(size_mib=opts["size_mib"], n=opts["n"], seconds=opts["seconds"])
        said = ", ".join(f"{kind} {value:,.0f} GFLOPS" for kind, value in peaks.gflops.items())
        self.stdout.write(f"{peaks.gbps:,.1f} GB/s copy bandwidth, {said}")
        if opts["save"]:
            pool.peak_gbps, pool.peak_gflops = peaks.gbps, peaks.gflops["fp32"]
            pool.peak_gflops_by_type = {**(pool.peak_gflops_by_type or {}), **peaks.gflops}
            pool.save(update_fields=["peak_gbps", "peak_gflops", "peak_gflops_by_type", "updated_at"])
            self.stdout.write(f"saved on pool {pool.name!r}")
        else:
            self.stdout.write("not saved (--save stores them on the pool)")

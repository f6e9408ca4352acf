"""Pools of machines (Pool) and the machines themselves (VMInstance).

A VM runs one agent and at most one job at a time. Its state machine:

    PROVISIONING ──► WARM ◄──► BUSY
         │            │          │
         ▼            ▼          ▼
       FAILED      DRAINING ──► STOPPED        (any live state can end FAILED)

The fleets app knows nothing about submissions: a busy VM carries an opaque `job_ref` naming the
work it serves, so infrastructure code stays reusable by billing and the dstack backend.
"""

from __future__ import annotations

import math
import uuid
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q

from agent.protocol import DEFAULT_PEAKS, FLOPS_TYPES, Peaks
from core import clock

# A GPU pool's languages when staff set none: its GPU's own. Triton on a GPU (compiled for that GPU at
# every case's sizes in the compile phase, run from a read-only Triton cache) is built and tested
# without a GPU but has never run on one (docs/adding-a-language.md): staff list it in a pool's
# languages once bench/gpu_device.sh's triton section has passed on that pool's GPU.
LANGUAGES_BY_DEVICE = {"host": ["cpp"], "hip": ["hip"], "cuda": ["cuda"]}
# Languages the agent can check without their GPU, on its emulated device (agent/emulator).
# Checked on the CPU of a pool without their GPU, in mode check: hip and cuda on the emulated
# device, triton in Triton's interpreter.
EMULABLE_LANGUAGES = ["hip", "cuda", "triton"]
# Physical peaks of a pool's device when staff set none (agent.protocol.DEFAULT_PEAKS, sources in
# docs/speed-of-light.md): an MI300X for hip, an H100 SXM for cuda, and a workstation-class CPU for
# host (`manage.py measure_peaks` measures the machine instead). A ranked time within 1.5x of
# the floor they give is held for review, so a default errs high: a real host rarely gets near it.


class Backend(models.TextChoices):
    LOCAL = "local", "Local agent processes"
    DSTACK = "dstack", "dstack"
    SIM = "sim", "Simulated cloud (cold starts and price simulated)"


class PoolPolicy(models.TextChoices):
    """When a pool starts, keeps and stops VMs (fleets.policy)."""

    DEFAULT = "", "Default (adaptive for dstack and simulated pools, fixed idle timeout for local ones)"
    FIXED = "fixed", "Fixed idle timeout"
    ALWAYS_ON = "always_on", "Always on (min VMs kept up)"
    ADAPTIVE = "adaptive", "Adaptive (idle timeout from cold-start time and arrivals, credit-aware)"


class Device(models.TextChoices):
    HOST = "host", "Host CPU"
    HIP = "hip", "AMD GPU (HIP)"
    CUDA = "cuda", "NVIDIA GPU (CUDA)"


def prewarm_ranges(text: str) -> list[tuple[int, int]]:
    """"08-18,20-22" -> [(8, 18), (20, 22)]: UTC hours, end excluded; a range may wrap midnight (22-06)."""
    ranges = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        start, sep, end = part.partition("-")
        if not sep or not start.strip().isdigit() or not end.strip().isdigit():
            raise ValidationError(f"{part!r}: write hour ranges as HH-HH, e.g. 08-18.")
        first, last = int(start), int(end)
        if not (0 <= first <= 23 and 1 <= last <= 24) or first == last:
            raise ValidationError(f"{part!r}: hours run from 00 to 24 and a range cannot be empty.")
        ranges.append((first, last))
    return ranges


def validate_prewarm_hours(value: str) -> None:
    prewarm_ranges(value)


def validate_peaks_by_type(value: Any) -> None:
    """{flops_type: GFLOPS}: known types (agent.protocol.FLOPS_TYPES), positive numbers."""
    if not isinstance(value, dict):
        raise ValidationError("must be an object of type to GFLOPS, e.g. {\"bf16\": 1307400}")
    for kind, gflops in value.items():
        if kind not in FLOPS_TYPES:
            raise ValidationError(f"{kind!r} is not one of {', '.join(FLOPS_TYPES)}")
        if isinstance(gflops, bool) or not isinstance(gflops, int | float) or not math.isfinite(gflops) or gflops <= 0:
            raise ValidationError(f"{kind}: must be a positive number of GFLOPS, not {gflops!r}")


class Pool(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.SlugField(max_length=63, unique=True, help_text="The pool name users submit to.")
    title = models.CharField(max_length=200, blank=True)
    backend = models.CharField(max_length=16, choices=Backend.choices, default=Backend.LOCAL)
    device = models.CharField(max_length=8, choices=Device.choices, default=Device.HOST)
    languages = models.JSONField(default=list, blank=True,
                                 help_text="Languages accepted; empty means the device's own.")
    gpu_name = models.CharField(max_length=64, blank=True, help_text="e.g. MI300X")
    gpu_count = models.PositiveSmallIntegerField(default=0)
    max_vms = models.PositiveIntegerField(default=1)
    idle_timeout_s = models.PositiveIntegerField(default=600, help_text=(
        "Seconds a warm VM waits for work (fixed policy, and always-on above its min VMs); 0 stops it at the "
        "reaper's next pass (every minute)."))
    policy = models.CharField(max_length=16, choices=PoolPolicy.choices, default=PoolPolicy.DEFAULT, blank=True,
                              help_text="When VMs start, stay warm and stop.")
    min_vms = models.PositiveIntegerField(default=0, help_text="Always-on policy: VMs kept up at all times.")
    prewarm_hours = models.CharField(
        max_length=100, blank=True, validators=[validate_prewarm_hours],
        help_text="Adaptive policy: UTC hours with one VM kept warm, e.g. 08-18 or 07-12,14-20 (started one cold "
                  "start ahead).")
    forecast_prewarm = models.BooleanField(
        default=False, help_text="Adaptive policy: start and keep VMs ahead of the demand the pool's own history "
                                 "and its declared events forecast (fleets.forecast), within the budget below.")
    prewarm_budget_usd = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("10"), validators=[MinValueValidator(Decimal(0))],
        help_text="Forecast pre-warming: the most its VM time may cost in one UTC day, USD (a wrong forecast "
                  "costs at most this).")
    provision_timeout_s = models.PositiveIntegerField(default=900, validators=[MinValueValidator(1)])
    hourly_rate = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"),
                                      help_text="USD per VM-hour when the backend reports no price.")
    # Backend-specific settings: local {"insecure_no_sandbox": bool, "compile_only_languages": [...],
    # "emulated_languages": [...]}; dstack: the fleet spec.
    config = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True, help_text="Accepts new submissions.")
    peak_gbps = models.FloatField(null=True, blank=True, validators=[MinValueValidator(0.001)],
                                  help_text="Peak memory bandwidth of one device, GB/s; empty: the device's default "
                                            "(MI300X 5300, H100 SXM 3350, host 100).")
    peak_gflops = models.FloatField(null=True, blank=True, validators=[MinValueValidator(0.001)],
                                    help_text="Peak FP32 compute of one device, GFLOPS; empty: the device's default "
                                              "(MI300X 163400, H100 SXM 67000, host 2000).")
    peak_gflops_by_type = models.JSONField(
        default=dict, blank=True, validators=[validate_peaks_by_type],
        help_text="Dense peak compute of one device per type, GFLOPS, e.g. {\"bf16\": 1307400, \"fp8\": 2614900}; a "
                  "type left out takes the device's default (MI300X, H100 SXM; a host pool: its fp32 peak). "
                  "Types: " + ", ".join(FLOPS_TYPES) + ".")
    # Share of the credit used as billing last saw it (billing writes it; the adaptive policy reads it).
    credit_used_pct = models.DecimalField(max_digits=9, decimal_places=2, null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        db_table = "fleets_fleet"  # the table from before the model was named Pool: no data moved

    def __str__(self) -> str:
        return self.name

    @property
    def policy_in_effect(self) -> str:
        if self.policy:
            return self.policy
        return PoolPolicy.FIXED if self.backend == Backend.LOCAL else PoolPolicy.ADAPTIVE

    @property
    def is_simulated(self) -> bool:
        return self.backend == Backend.SIM

    @property
    def accepted_languages(self) -> list[str]:
        return list(self.languages) or LANGUAGES_BY_DEVICE.get(self.device, [])

    @property
    def peaks(self) -> Peaks | None:
        """The peaks (GB/s, GFLOPS per type) a time's physical floor is computed from: what staff
        set, else the device's defaults; None when unknown."""
        default = DEFAULT_PEAKS.get(self.device)
        gflops = dict(default.gflops) if default else {}
        if self.peak_gflops:
            gflops["fp32"] = self.peak_gflops
        by_type = self.peak_gflops_by_type if isinstance(self.peak_gflops_by_type, dict) else {}
        gflops.update({kind: float(value) for kind, value in by_type.items() if kind in FLOPS_TYPES
                       and isinstance(value, int | float) and not isinstance(value, bool) and value > 0})
        gbps = self.peak_gbps or (default.gbps if default else None)
        return Peaks(gbps=gbps, gflops=gflops) if gbps and gflops.get("fp32") else None

    @property
    def compile_only_languages(self) -> list[str]:
        """Languages this pool cannot run but can compile-check (mode compile): the local pool on a
        machine without a GPU still tells a HIP author whether the kernel builds."""
        extra = self.config.get("compile_only_languages", []) if isinstance(self.config, dict) else []
        return [lang for lang in extra if lang not in self.accepted_languages]

    @property
    def emulated_languages(self) -> list[str]:
        """Languages this pool checks on the agent's emulated device (the CPU), in mode check only.
        `config["emulated_languages"]` when set (`make run` sets it to what the local agent reports);
        unset, a local pool on the host device offers hip and cuda, any other pool none."""
        config = self.config if isinstance(self.config, dict) else {}
        default = EMULABLE_LANGUAGES if self.backend == Backend.LOCAL and self.device == Device.HOST else []
        chosen = config.get("emulated_languages", default)
        if not isinstance(chosen, list):
            return []
        return [lang for lang in EMULABLE_LANGUAGES if lang in chosen and lang not in self.accepted_languages]


class VMState(models.TextChoices):
    PROVISIONING = "PROVISIONING"
    WARM = "WARM"
    BUSY = "BUSY"
    DRAINING = "DRAINING"
    STOPPED = "STOPPED"
    FAILED = "FAILED"


# Not ended yet: these count against a pool's max_vms (a draining VM still costs money until it is gone).
LIVE_VM_STATES = (VMState.PROVISIONING, VMState.WARM, VMState.BUSY, VMState.DRAINING)
ENDED_VM_STATES = (VMState.STOPPED, VMState.FAILED)
# VMs that may still serve their pool's queue (a draining VM takes no new work).
SERVING_VM_STATES = (VMState.PROVISIONING, VMState.WARM, VMState.BUSY)


class VMInstance(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    pool = models.ForeignKey(Pool, on_delete=models.PROTECT, related_name="vms", db_column="fleet_id")
    state = models.CharField(max_length=16, choices=VMState.choices, default=VMState.PROVISIONING)
    state_reason = models.TextField(blank=True)
    # Where the agent answers and how to prove we are its orchestrator.
    base_url = models.CharField(max_length=300, blank=True)
    token = models.CharField(max_length=128, blank=True)
    # Backend handles: the local backend records the process; dstack the run name.
    pid = models.PositiveIntegerField(null=True, blank=True)
    handle = models.CharField(max_length=200, blank=True)
    agent_info = models.JSONField(default=dict, blank=True)
    # The work this VM serves right now (the submissions app stores its job id here).
    job_ref = models.CharField(max_length=100, blank=True)
    jobs_started = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=clock.now, editable=False)
    ready_at = models.DateTimeField(null=True, blank=True)
    state_changed_at = models.DateTimeField(default=clock.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        # Named as before the pool rename (so were the column and the table): no index was rebuilt.
        indexes = [models.Index(fields=["pool", "state"], name="fleets_vmin_fleet_i_7b7554_idx")]
        constraints = [
            # A busy VM always says whom it serves; an idle one serves nobody.
            models.CheckConstraint(
                condition=~Q(state="BUSY") | ~Q(job_ref=""), name="vm_busy_has_job_ref"),
        ]

    def __str__(self) -> str:
        return f"{self.pool.name}/{str(self.id)[:8]} {self.state}"

    @property
    def is_live(self) -> bool:
        return self.state in LIVE_VM_STATES


class VMJob(models.Model):
    """One job a VM served, from acquisition to release: the pool's measured arrivals and job
    lengths, which the adaptive policy reads (fleets.policy). Kept two days."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="+", db_column="fleet_id")
    vm = models.ForeignKey(VMInstance, on_delete=models.CASCADE, related_name="+")
    job_ref = models.CharField(max_length=100)
    cold = models.BooleanField(default=False, help_text="The VM was started for this job (its length includes that).")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["pool", "started_at"], name="fleets_vmjo_fleet_i_5b4954_idx")]

    def __str__(self) -> str:
        return f"{self.job_ref} on {self.vm_id}"


class PoolArrivals(models.Model):
    """Submissions made to a pool, per slot of fleets.forecast.SLOT: the history its forecast learns
    from (written as each submission is stored, so a slot's count only grows while it is current)."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="+")
    slot = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pool", "slot"], name="pool_arrivals_one_row_per_slot")]

    def __str__(self) -> str:
        return f"{self.pool_id} {self.slot:%Y-%m-%d %H:%M}: {self.count}"


class PoolEvent(models.Model):
    """A demand event staff declare ahead (a contest window): the forecast expects at least
    `expected_per_h` submissions an hour to the pool between its start and end."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="events")
    title = models.CharField(max_length=200)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    expected_per_h = models.FloatField(validators=[MinValueValidator(0.0)],
                                       help_text="Submissions an hour expected during the event.")

    class Meta:
        ordering = ["starts_at"]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        if self.starts_at and self.ends_at and self.ends_at <= self.starts_at:
            raise ValidationError({"ends_at": "An event ends after it starts."})


class PrewarmDecision(models.Model):
    """A VM the forecast started, and why (shown in the admin and on the cost dashboard)."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="+")
    vm = models.ForeignKey(VMInstance, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    at = models.DateTimeField()
    expected = models.FloatField(help_text="Submissions expected within the horizon.")
    horizon_s = models.PositiveIntegerField()
    vms_wanted = models.PositiveSmallIntegerField()
    reason = models.TextField()

    class Meta:
        ordering = ["-at"]
        indexes = [models.Index(fields=["pool", "at"], name="fleets_prewarm_pool_at")]

    def __str__(self) -> str:
        return self.reason


class PrewarmCharge(models.Model):
    """One slot of one VM kept up by the forecast alone (started by it and unused yet, or idle past the
    adaptive timeout), charged ahead against the pool's daily pre-warm budget. One row per VM and slot,
    so a reaper pass run twice charges once."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="+")
    vm = models.ForeignKey(VMInstance, on_delete=models.CASCADE, related_name="+")
    slot = models.DateTimeField()
    amount = models.DecimalField(max_digits=12, decimal_places=6)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vm", "slot"], name="prewarm_charge_one_per_vm_slot")]
        indexes = [models.Index(fields=["pool", "slot"], name="fleets_prewarm_charge_slot")]

    def __str__(self) -> str:
        return f"{self.vm_id} {self.slot:%Y-%m-%d %H:%M}: {self.amount}"

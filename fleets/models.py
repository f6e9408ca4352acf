"""Pools of machines (Fleet) and the machines themselves (VMInstance).

A VM runs one agent and at most one job at a time. Its state machine:

    PROVISIONING ──► WARM ◄──► BUSY
         │            │          │
         ▼            ▼          ▼
       FAILED      DRAINING ──► STOPPED        (any live state can end FAILED)

Fleets know nothing about submissions: a busy VM only carries an opaque `job_ref` naming the
work it serves, so infrastructure code stays reusable by billing and the dstack backend.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q

LANGUAGES_BY_DEVICE = {"host": ["cpp"], "hip": ["hip"], "cuda": ["cuda"]}


class Backend(models.TextChoices):
    LOCAL = "local", "Local agent processes"
    DSTACK = "dstack", "dstack"


class Device(models.TextChoices):
    HOST = "host", "Host CPU"
    HIP = "hip", "AMD GPU (HIP)"
    CUDA = "cuda", "NVIDIA GPU (CUDA)"


class Fleet(models.Model):
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
    idle_timeout_s = models.PositiveIntegerField(default=600, validators=[MinValueValidator(1)])
    provision_timeout_s = models.PositiveIntegerField(default=900, validators=[MinValueValidator(1)])
    hourly_rate = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"),
                                      help_text="USD per VM-hour when the backend reports no price.")
    # Backend-specific settings: local {"insecure_no_sandbox": bool}; dstack: the fleet spec.
    config = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True, help_text="Accepts new submissions.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def accepted_languages(self) -> list[str]:
        return list(self.languages) or LANGUAGES_BY_DEVICE.get(self.device, [])

    @property
    def compile_only_languages(self) -> list[str]:
        """Languages this pool cannot run but can compile-check (mode compile): the local pool on a
        machine without a GPU still tells a HIP author whether the kernel builds."""
        extra = self.config.get("compile_only_languages", []) if isinstance(self.config, dict) else []
        return [lang for lang in extra if lang not in self.accepted_languages]


class VMState(models.TextChoices):
    PROVISIONING = "PROVISIONING"
    WARM = "WARM"
    BUSY = "BUSY"
    DRAINING = "DRAINING"
    STOPPED = "STOPPED"
    FAILED = "FAILED"


LIVE_VM_STATES = (VMState.PROVISIONING, VMState.WARM, VMState.BUSY, VMState.DRAINING)
# States that count against a fleet's max_vms (a draining VM still costs money until it is gone).
COUNTED_VM_STATES = LIVE_VM_STATES


class VMInstance(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    fleet = models.ForeignKey(Fleet, on_delete=models.PROTECT, related_name="vms")
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
    created_at = models.DateTimeField(auto_now_add=True)
    ready_at = models.DateTimeField(null=True, blank=True)
    state_changed_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["fleet", "state"])]
        constraints = [
            # A busy VM always says whom it serves; an idle one serves nobody.
            models.CheckConstraint(
                condition=~Q(state="BUSY") | ~Q(job_ref=""), name="vm_busy_has_job_ref"),
        ]

    def __str__(self) -> str:
        return f"{self.fleet.name}/{str(self.id)[:8]} {self.state}"

    @property
    def is_live(self) -> bool:
        return self.state in LIVE_VM_STATES

"""Problems (versioned by content hash), submissions and their ordered events."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from fleets.models import Fleet, VMInstance


class Problem(models.Model):
    slug = models.SlugField(max_length=63, unique=True)
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=16)
    tags = models.JSONField(default=list, blank=True)
    # The definition new submissions are judged against; older versions stay for old submissions.
    current_version = models.ForeignKey("ProblemVersion", null=True, blank=True, on_delete=models.SET_NULL,
                                        related_name="+")
    is_active = models.BooleanField(default=True, help_text="Listed and accepting submissions.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class ProblemVersion(models.Model):
    """One exact bundle (problem.yaml + reference.py): what a submission is judged against."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="versions")
    content_hash = models.CharField(max_length=64)
    bundle = models.JSONField(help_text="agent.problems.Problem.to_bundle(), sent with every job")
    statement = models.TextField(blank=True)
    signature = models.TextField(blank=True)
    templates = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["problem", "content_hash"], name="problem_version_unique")]

    def __str__(self) -> str:
        return f"{self.problem.slug}@{self.content_hash[:12]}"


class Language(models.TextChoices):
    CPP = "cpp", "C++ (host)"
    HIP = "hip", "HIP"
    CUDA = "cuda", "CUDA"


class Mode(models.TextChoices):
    BENCHMARK = "benchmark", "Check and benchmark"
    CHECK = "check", "Check only"
    COMPILE = "compile", "Compile only"


class Status(models.TextChoices):
    IN_QUEUE = "IN_QUEUE"
    PROVISIONING = "PROVISIONING"
    COMPILING = "COMPILING"
    CHECKING = "CHECKING"
    BENCHMARKING = "BENCHMARKING"
    ACCEPTED = "ACCEPTED"
    CHECKED = "CHECKED"
    COMPILED = "COMPILED"
    WRONG_ANSWER = "WRONG_ANSWER"
    COMPILE_ERROR = "COMPILE_ERROR"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIME_LIMIT_EXCEEDED = "TIME_LIMIT_EXCEEDED"
    CANCELLED = "CANCELLED"
    REJECTED = "REJECTED"
    ERROR = "ERROR"


ACTIVE_STATUSES = (Status.IN_QUEUE, Status.PROVISIONING, Status.COMPILING, Status.CHECKING, Status.BENCHMARKING)
# Dispatched to a VM: a poller owns these.
RUNNING_STATUSES = (Status.PROVISIONING, Status.COMPILING, Status.CHECKING, Status.BENCHMARKING)
TERMINAL_STATUSES = tuple(s for s in Status if s not in ACTIVE_STATUSES)
# The status each mode ends with when everything passed.
SUCCESS_BY_MODE = {Mode.BENCHMARK: Status.ACCEPTED, Mode.CHECK: Status.CHECKED, Mode.COMPILE: Status.COMPILED}


class VMStartKind(models.TextChoices):
    COLD_START = "COLD_START"
    WARM_REUSE = "WARM_REUSE"


class Submission(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    problem_version = models.ForeignKey(ProblemVersion, on_delete=models.PROTECT, related_name="submissions")
    fleet = models.ForeignKey(Fleet, on_delete=models.PROTECT, related_name="submissions")
    language = models.CharField(max_length=8, choices=Language.choices)
    mode = models.CharField(max_length=12, choices=Mode.choices, default=Mode.BENCHMARK)
    source = models.TextField()
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.IN_QUEUE)
    status_reason = models.TextField(blank=True)
    vm = models.ForeignKey(VMInstance, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    vm_start = models.CharField(max_length=12, choices=VMStartKind.choices, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    score_ms = models.FloatField(null=True, blank=True, help_text="Geometric mean of benchmark case means.")
    # Dispatch bookkeeping: attempt N runs as agent job "<id>-N"; the poller holds a lease.
    attempt = models.PositiveSmallIntegerField(default=0)
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    last_seq = models.PositiveIntegerField(default=0, help_text="Highest SubmissionEvent.seq.")
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["fleet", "status", "created_at"]),
            models.Index(fields=["user", "-created_at"]),
            models.Index(fields=["status", "lease_expires_at"]),
        ]

    def __str__(self) -> str:
        return f"{str(self.id)[:8]} {self.problem_id} {self.status}"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def job_id(self) -> str:
        return f"{self.id}-{self.attempt}"


class SubmissionEvent(models.Model):
    """What happened, in order. `seq` is ours (1..N per submission, the SSE id); agent events also
    keep the agent's own numbering so a poller that died resumes with `after=agent_seq`."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    at = models.DateTimeField(help_text="When it happened (the agent's clock for agent events).")
    recorded_at = models.DateTimeField(auto_now_add=True)
    attempt = models.PositiveSmallIntegerField(default=0)
    agent_seq = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["submission", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "seq"], name="event_seq_unique"),
            models.UniqueConstraint(fields=["submission", "attempt", "agent_seq"], condition=Q(agent_seq__isnull=False),
                                    name="event_agent_seq_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.submission_id}#{self.seq} {self.type}"

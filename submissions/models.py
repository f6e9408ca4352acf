"""Problems (versioned by content hash), submissions and their ordered events."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from core import clock
from fleets.models import Pool, VMInstance


class Problem(models.Model):
    slug = models.SlugField(max_length=63, unique=True)
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=16)
    tags = models.JSONField(default=list, blank=True)
    data_types = models.JSONField(default=list, blank=True,
                                  help_text="Element types of its buffers (agent.problems.Problem.data_types).")
    # "|tag:gemm|tag:fp8|type:bfloat16|": what the list filters search (label_key). JSON membership
    # is asked differently on SQLite and PostgreSQL; a delimited LIKE reads the same on both.
    labels = models.TextField(blank=True, editable=False)
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

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.labels = problem_labels(tags=self.tags, data_types=self.data_types)
        fields = kwargs.get("update_fields")
        if fields is not None and {"tags", "data_types"} & set(fields):
            kwargs["update_fields"] = {*fields, "labels"}
        super().save(*args, **kwargs)


def label_key(kind: str, value: str) -> str:
    """One membership in Problem.labels, delimiters included: `|tag:gemm|` never matches `|tag:gemm-x|`."""
    return f"|{kind}:{value.strip().lower()}|"


def problem_labels(*, tags: list[str], data_types: list[str]) -> str:
    keys = [f"tag:{t.strip().lower()}" for t in tags] + [f"type:{t.strip().lower()}" for t in data_types]
    return f"|{'|'.join(keys)}|" if keys else ""


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
    TRITON = "triton", "Triton"


# Languages a problem offers only where its bundle has their template (agent.problems' schema).
OPTIONAL_LANGUAGES = (Language.TRITON,)


class Mode(models.TextChoices):
    BENCHMARK = "benchmark", "Check and benchmark"
    CHECK = "check", "Check only"
    COMPILE = "compile", "Compile only"
    LEADERBOARD = "leaderboard", "Check, benchmark and rank"


class Status(models.TextChoices):
    IN_QUEUE = "IN_QUEUE"
    PROVISIONING = "PROVISIONING"
    COMPILING = "COMPILING"
    CHECKING = "CHECKING"
    BENCHMARKING = "BENCHMARKING"
    RANKING = "RANKING"
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


# The groups of statuses; every app reads them from here.
ACTIVE_STATUSES = (Status.IN_QUEUE, Status.PROVISIONING, Status.COMPILING, Status.CHECKING, Status.BENCHMARKING,
                   Status.RANKING)
# Dispatched to a VM: a runner owns these.
RUNNING_STATUSES = (Status.PROVISIONING, Status.COMPILING, Status.CHECKING, Status.BENCHMARKING, Status.RANKING)
# What the agent reports while it works on the job.
AGENT_STATUSES = (Status.COMPILING, Status.CHECKING, Status.BENCHMARKING, Status.RANKING)
TERMINAL_STATUSES = tuple(s for s in Status if s not in ACTIVE_STATUSES)
# The status each mode ends with when everything passed.
SUCCESS_BY_MODE = {Mode.BENCHMARK: Status.ACCEPTED, Mode.CHECK: Status.CHECKED, Mode.COMPILE: Status.COMPILED,
                   Mode.LEADERBOARD: Status.ACCEPTED}
SUCCESS_STATUSES = tuple(dict.fromkeys(SUCCESS_BY_MODE.values()))
# The agent judged the source (not cancelled, rejected or lost to an infrastructure error).
VERDICT_STATUSES = (*SUCCESS_STATUSES, Status.WRONG_ANSWER, Status.COMPILE_ERROR, Status.RUNTIME_ERROR,
                    Status.TIME_LIMIT_EXCEEDED)
# The agent judged the source and it failed.
WRONG_STATUSES = tuple(s for s in VERDICT_STATUSES if s not in SUCCESS_STATUSES)
# Ended without a success, whatever the reason.
FAILED_STATUSES = tuple(s for s in TERMINAL_STATUSES if s not in SUCCESS_STATUSES)
# A problem counts as solved by a submission that passed its tests (compiling proves nothing).
SOLVED_STATUSES = (Status.ACCEPTED, Status.CHECKED)
# Final statuses an agent may report for a job (REJECTED is the platform's alone).
AGENT_FINAL_STATUSES = tuple(s for s in TERMINAL_STATUSES if s != Status.REJECTED)


class VMStartKind(models.TextChoices):
    COLD_START = "COLD_START"
    WARM_REUSE = "WARM_REUSE"


class QueueClass(models.TextChoices):
    """Who asked for the judging: the owner (their submission), or staff (a rejudge, a background
    class of the fair queue that never goes before a user's own submission)."""

    USER = "user", "Submission"
    REJUDGE = "rejudge", "Rejudge"


class Submission(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    problem_version = models.ForeignKey(ProblemVersion, on_delete=models.PROTECT, related_name="submissions")
    pool = models.ForeignKey(Pool, on_delete=models.PROTECT, related_name="submissions", db_column="fleet_id")
    language = models.CharField(max_length=8, choices=Language.choices)
    mode = models.CharField(max_length=12, choices=Mode.choices, default=Mode.BENCHMARK)
    # Checked on the agent's emulated device (the CPU) because the pool has no GPU for its language:
    # fixed when it is created, shown as "emulated (CPU)", never on a leaderboard.
    emulated = models.BooleanField(default=False)
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
    created_at = models.DateTimeField(default=clock.now, editable=False)
    queued_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The judging in progress or last done (a rejudge adds one; the earlier ones are the history).
    judging = models.ForeignKey("Judging", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    queue_class = models.CharField(max_length=8, choices=QueueClass.choices, default=QueueClass.USER)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["pool", "status", "created_at"], name="submissions_fleet_i_fb6263_idx"),
            models.Index(fields=["user", "-created_at"]),
            models.Index(fields=["status", "lease_expires_at"]),
            models.Index(fields=["problem", "pool"], name="submission_problem_pool_idx"),
        ]
        permissions = [("moderate_submission", "Can approve held results and invalidate or restore submissions"),
                       ("rejudge_submission", "Can rejudge submissions")]

    def __str__(self) -> str:
        # Named by its slug, as staff know problems (the database id of a problem told them nothing).
        return f"{str(self.id)[:8]} · {self.problem.slug} · {self.status}"

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
        return f"{str(self.submission_id)[:8]}#{self.seq} {self.type}"


class Judging(models.Model):
    """One judging of a submission: the first, then one per rejudge. Earlier ones stay as its history.
    `ranked_seed` is the secret of the ranked pass: sent to the agent, never shown anywhere."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="judgings")
    number = models.PositiveSmallIntegerField(help_text="1: the submission itself; 2, 3, ...: rejudges.")
    kind = models.CharField(max_length=8, choices=QueueClass.choices, default=QueueClass.USER)
    reason = models.TextField(blank=True, help_text="Why staff asked for a rejudge.")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    problem_version = models.ForeignKey(ProblemVersion, on_delete=models.PROTECT, related_name="+")
    ranked_seed = models.BigIntegerField(null=True, blank=True, editable=False)
    first_attempt = models.PositiveSmallIntegerField(help_text="The submission's first attempt for this judging.")
    confirms = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                 help_text="The judging whose record this one confirms (leaderboard.records).")
    avoid_vm = models.UUIDField(null=True, blank=True,
                                help_text="A VM this judging should not run on where the pool has another.")
    record = models.BooleanField(default=False, help_text="Its ranked result is a record: it ranks once a second "
                                                          "judging confirms it (leaderboard.records).")
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.IN_QUEUE)
    status_reason = models.TextField(blank=True)
    score_ms = models.FloatField(null=True, blank=True)
    speedup = models.FloatField(null=True, blank=True, help_text="Public benchmark against the reference.")
    summary = models.JSONField(default=dict, blank=True)
    ranked_passed = models.BooleanField(null=True, blank=True)
    ranked_score_ms = models.FloatField(null=True, blank=True)
    ranked_ci95_lo_ms = models.FloatField(null=True, blank=True)
    ranked_ci95_hi_ms = models.FloatField(null=True, blank=True)
    ranked_speedup = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["submission", "number"]
        constraints = [models.UniqueConstraint(fields=["submission", "number"], name="judging_number_unique")]

    def __str__(self) -> str:
        return f"{str(self.submission_id)[:8]} #{self.number} {self.status}"

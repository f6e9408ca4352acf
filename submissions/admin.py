from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from config.auth import request_user
from submissions.models import Problem, ProblemVersion, Submission, SubmissionEvent
from submissions.services import submission_cancel


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "difficulty", "is_active", "current_version")
    list_filter = ("difficulty", "is_active")
    search_fields = ("slug", "title")
    readonly_fields = ("current_version", "created_at", "updated_at")


@admin.register(ProblemVersion)
class ProblemVersionAdmin(admin.ModelAdmin):
    list_display = ("problem", "content_hash", "created_at")
    list_select_related = ("problem",)
    readonly_fields = ("problem", "content_hash", "bundle", "statement", "signature", "templates", "created_at")


class EventInline(admin.TabularInline):
    model = SubmissionEvent
    extra = 0
    can_delete = False
    fields = ("seq", "type", "payload", "at", "attempt", "agent_seq")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("short_id", "user", "problem", "language", "mode", "fleet", "status", "vm_start",
                    "score_ms", "created_at")
    list_filter = ("status", "language", "mode", "fleet", "vm_start")
    list_select_related = ("user", "problem", "fleet")
    search_fields = ("id", "user__username", "problem__slug")
    readonly_fields = [f.name for f in Submission._meta.fields]
    inlines = [EventInline]
    actions = ("cancel",)

    @admin.display(description="id")
    def short_id(self, submission: Submission) -> str:
        return str(submission.pk)[:8]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Cancel selected submissions")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        done = 0
        for submission in queryset.filter(status__in=("IN_QUEUE", "PROVISIONING", "COMPILING", "CHECKING",
                                                      "BENCHMARKING")):
            submission_cancel(user=request_user(request), submission_id=submission.pk)
            done += 1
        self.message_user(request, f"Cancel requested for {done} submission(s).")

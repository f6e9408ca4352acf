from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import URLPattern, path

from core.auth import request_user
from submissions.admin_moderation import SubmissionModeration, rejudge_problems
from submissions.models import ACTIVE_STATUSES, Judging, Problem, ProblemVersion, Submission, SubmissionEvent
from submissions.services import submission_cancel


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "difficulty", "is_active", "current_version")
    list_filter = ("difficulty", "is_active")
    search_fields = ("slug", "title")
    readonly_fields = ("current_version", "created_at", "updated_at")
    actions = ("rejudge_problems",)

    def has_rejudge_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("submissions.rejudge_submission")

    @admin.action(description="Rejudge the selected problems' leaderboard submissions…", permissions=["rejudge"])
    def rejudge_problems(self, request: HttpRequest, queryset: QuerySet[Problem]) -> object:
        return rejudge_problems(self, request, queryset)


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


class JudgingInline(admin.TabularInline):
    """The submission's history. The ranked seed is not among the fields: staff never see it either."""

    model = Judging
    extra = 0
    can_delete = False
    fields = ("number", "kind", "reason", "requested_by", "problem_version", "status", "status_reason", "score_ms",
              "ranked_passed", "ranked_score_ms", "ranked_speedup", "created_at", "finished_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Submission)
class SubmissionAdmin(SubmissionModeration):
    list_display = ("short_id", "user", "problem", "language", "mode", "emulated", "fleet", "status", "vm_start",
                    "score_ms", "ranked_score_ms", "review", "invalidated", "queue_class", "created_at")
    list_filter = ("status", "review", "queue_class", "language", "mode", "emulated", "fleet", "vm_start")
    list_select_related = ("user", "problem", "fleet")
    search_fields = ("id", "user__username", "problem__slug")
    readonly_fields = [f.name for f in Submission._meta.fields]
    inlines = [JudgingInline, EventInline]
    actions = ("cancel", "approve", "invalidate", "restore", "rejudge")
    change_list_template = "admin/submissions/submission/change_list.html"

    @admin.display(description="id")
    def short_id(self, submission: Submission) -> str:
        return str(submission.pk)[:8]

    @admin.display(boolean=True, description="invalidated")
    def invalidated(self, submission: Submission) -> bool:
        return submission.invalidated_at is not None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        return [path("rejudge/", self.admin_site.admin_view(self.rejudge_view), name="submissions_rejudge"),
                *super().get_urls()]

    @admin.action(description="Cancel selected submissions", permissions=["change"])
    def cancel(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        done = 0
        for submission in queryset.filter(status__in=ACTIVE_STATUSES):
            submission_cancel(user=request_user(request), submission_id=submission.pk)
            done += 1
        self.message_user(request, f"Cancel requested for {done} submission(s).")

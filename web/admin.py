"""The admin of problems and submissions: a submission's page reads as a summary first (verdict,
scores, speed of light, cost, VM, review with Approve / Invalidate), the stored fields folded away."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path

from core.auth import request_user
from core.units import format_ms
from leaderboard.admin_moderation import SubmissionModeration, rejudge_problems
from leaderboard.entries import entry_of
from submissions.models import ACTIVE_STATUSES, Judging, Problem, ProblemVersion, Submission, SubmissionEvent
from submissions.services import submission_cancel
from web.admin_summary import submission_admin_summary


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
    classes = ["collapse"]  # every event with its raw payload: folded away below the summary
    fields = ("seq", "type", "payload", "at", "attempt", "agent_seq")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


def _ms(value: float | None) -> str:
    return "—" if value is None else format_ms(value)


class JudgingInline(admin.TabularInline):
    """The submission's history. The ranked seed is not among the fields: staff never see it either.
    Times and speedups as the pages write them (a raw float printed 17 digits)."""

    model = Judging
    extra = 0
    can_delete = False
    fields = ("number", "kind", "reason", "requested_by", "problem_version", "status", "status_reason", "score",
              "ranked_passed", "ranked_score", "ranked_speedup_shown", "created_at", "finished_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="score")
    def score(self, judging: Judging) -> str:
        return _ms(judging.score_ms)

    @admin.display(description="ranked score")
    def ranked_score(self, judging: Judging) -> str:
        if judging.ranked_score_ms is None:
            return "—"
        low, high = judging.ranked_ci95_lo_ms, judging.ranked_ci95_hi_ms
        interval = f" (95 % {format_ms(low)} – {format_ms(high)})" if low is not None and high is not None else ""
        return _ms(judging.ranked_score_ms) + interval

    @admin.display(description="ranked speedup")
    def ranked_speedup_shown(self, judging: Judging) -> str:
        return "—" if judging.ranked_speedup is None else f"{judging.ranked_speedup:.2f}×"


@admin.register(Submission)
class SubmissionAdmin(SubmissionModeration):
    list_display = ("short_id", "user", "problem", "language", "mode", "emulated", "pool", "status", "vm_start",
                    "score", "ranked_score", "review", "invalidated", "queue_class", "created_at")
    list_filter = ("status", "entry__review", "queue_class", "language", "mode", "emulated", "pool", "vm_start")
    list_select_related = ("user", "problem", "pool", "entry")
    search_fields = ("id", "user__username", "problem__slug")
    readonly_fields = [f.name for f in Submission._meta.fields]
    # The summary (change_form.html) reads first; what is stored, raw JSON included, is folded away.
    fieldsets = [("Source", {"classes": ["collapse"], "fields": ["source"]}),
                 ("Everything stored", {"classes": ["collapse"],
                                        "fields": [f for f in readonly_fields if f != "source"]})]
    inlines = [JudgingInline, EventInline]
    actions = ("cancel", "approve", "invalidate", "restore", "rejudge")
    change_list_template = "admin/submissions/submission/change_list.html"
    change_form_template = "admin/submissions/submission/change_form.html"

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        submission = (Submission.objects.select_related("problem", "problem_version", "pool", "user", "entry",
                                                      "entry__reviewed_by")
                      .filter(pk=object_id).first() if self.has_view_permission(request) else None)
        extra = {**(extra_context or {}), "can_moderate": self.has_moderate_permission(request)}
        if submission is not None:
            extra["summary"] = submission_admin_summary(submission=submission)
        return super().change_view(request, object_id, form_url, extra_context=extra)

    @admin.display(description="id")
    def short_id(self, submission: Submission) -> str:
        return str(submission.pk)[:8]

    @admin.display(description="score", ordering="score_ms")
    def score(self, submission: Submission) -> str:
        return _ms(submission.score_ms)

    @admin.display(description="ranked score", ordering="entry__ranked_score_ms")
    def ranked_score(self, submission: Submission) -> str:
        return _ms(entry_of(submission).ranked_score_ms)

    @admin.display(description="review", ordering="entry__review")
    def review(self, submission: Submission) -> str:
        return entry_of(submission).get_review_display()

    @admin.display(boolean=True, description="invalidated")
    def invalidated(self, submission: Submission) -> bool:
        return entry_of(submission).invalidated_at is not None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        return [path("rejudge/", view(self.rejudge_view), name="submissions_rejudge"),
                path("<uuid:object_id>/approve/", view(self.approve_one), name="submissions_submission_approve"),
                path("<uuid:object_id>/invalidate/", view(self.invalidate_one),
                     name="submissions_submission_invalidate"),
                path("<uuid:object_id>/restore/", view(self.restore_one), name="submissions_submission_restore"),
                *super().get_urls()]

    @admin.action(description="Cancel selected submissions", permissions=["change"])
    def cancel(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        done = 0
        for submission in queryset.filter(status__in=ACTIVE_STATUSES):
            submission_cancel(user=request_user(request), submission_id=submission.pk)
            done += 1
        self.message_user(request, f"Cancel requested for {done} submission(s).")

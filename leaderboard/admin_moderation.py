"""The admin's moderation and rejudge actions on submissions and problems. Each asks for the
permission it needs (moderate_submission to approve, invalidate or restore; rejudge_submission to
rejudge), a reason where the owner will read one, and goes through the services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from core.auth import request_user
from core.exceptions import ApplicationError
from leaderboard.models import Review
from leaderboard.moderation import MAX_REASON, submission_approve, submission_invalidate, submission_restore
from leaderboard.rejudge import RejudgeReport, submissions_rejudge
from submissions.models import Problem, Submission

MODERATE, REJUDGE = "submissions.moderate_submission", "submissions.rejudge_submission"


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=MAX_REASON, widget=forms.TextInput(attrs={"size": 80}),
                             help_text="The submission's owner reads it.")


class RejudgeForm(ReasonForm):
    submissions = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
                                  help_text="Submission ids, one per line or separated by spaces.")
    user = forms.CharField(required=False, help_text="A username: their judged leaderboard submissions.")
    problem = forms.ModelChoiceField(queryset=Problem.objects.order_by("slug"), required=False, to_field_name="slug",
                                     help_text="A problem: its judged leaderboard submissions (with a user: theirs).")


def report_rejudge(modeladmin: admin.ModelAdmin, request: HttpRequest, report: RejudgeReport) -> None:
    modeladmin.message_user(request, f"Queued {len(report.queued)} rejudge(s) in the background class of the queue.")
    for submission_id, why in list(report.skipped.items())[:20]:
        modeladmin.message_user(request, f"Skipped {submission_id}: {why}.", messages.WARNING)


def _ask_reason(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet, *, action: str,
                title: str, form: ReasonForm) -> TemplateResponse:
    context = {**modeladmin.admin_site.each_context(request), "title": title, "opts": modeladmin.model._meta,
               "form": form, "action": action, "count": queryset.count(),
               "objects": list((queryset.select_related("problem") if queryset.model is Submission else queryset)[:50]),
               "selected": request.POST.getlist(ACTION_CHECKBOX_NAME)}
    return TemplateResponse(request, "admin/submissions/reason_form.html", context)


def _with_reason(request: HttpRequest) -> ReasonForm | None:
    """The reason form of a confirmed action page, or None on the first click."""
    return ReasonForm(request.POST) if "confirm" in request.POST else None


class SubmissionModeration(admin.ModelAdmin):
    """SubmissionAdmin's base: its moderation actions and the page to rejudge by user or problem."""

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(MODERATE)

    def has_rejudge_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(REJUDGE)

    @admin.action(description="Approve the held ranked results", permissions=["moderate"])
    def approve(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        done = 0
        for submission in queryset.filter(entry__review__in=(Review.HELD, Review.PENDING)):
            submission_approve(submission_id=submission.pk, by=request_user(request))
            done += 1
        self.message_user(request, f"Approved {done} result(s); they show on their leaderboards.")

    @admin.action(description="Invalidate the selected submissions…", permissions=["moderate"])
    def invalidate(self, request: HttpRequest, queryset: QuerySet[Submission]) -> HttpResponse | None:
        form = _with_reason(request)
        if form is not None and form.is_valid():
            for submission in queryset:
                submission_invalidate(submission_id=submission.pk, by=request_user(request),
                                      reason=form.cleaned_data["reason"])
            self.message_user(request, f"Invalidated {queryset.count()} submission(s); "
                                       "their owners see the reason.")
            return None
        return _ask_reason(self, request, queryset, action="invalidate",
                           title="Invalidate submissions", form=form or ReasonForm())

    @admin.action(description="Restore the selected invalidated submissions", permissions=["moderate"])
    def restore(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        done = 0
        for submission in queryset.filter(entry__invalidated_at__isnull=False):
            submission_restore(submission_id=submission.pk, by=request_user(request))
            done += 1
        self.message_user(request, f"Restored {done} submission(s).")

    @admin.action(description="Rejudge the selected submissions…", permissions=["rejudge"])
    def rejudge(self, request: HttpRequest, queryset: QuerySet[Submission]) -> HttpResponse | None:
        form = _with_reason(request)
        if form is not None and form.is_valid():
            report = submissions_rejudge(by=request_user(request), reason=form.cleaned_data["reason"],
                                         submission_ids=[str(pk) for pk in queryset.values_list("pk", flat=True)])
            report_rejudge(self, request, report)
            return None
        return _ask_reason(self, request, queryset, action="rejudge",
                           title="Rejudge submissions", form=form or ReasonForm())

    # ---- one submission, from the buttons of its page -------------------------------------------
    def _one(self, request: HttpRequest, object_id: Any, act: Callable[[], object], done: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_moderate_permission(request):
            raise PermissionDenied
        try:
            act()
        except ApplicationError as exc:
            self.message_user(request, exc.message, messages.WARNING)
        else:
            self.message_user(request, done)
        return HttpResponseRedirect(reverse("admin:submissions_submission_change", args=[object_id]))

    def approve_one(self, request: HttpRequest, object_id: Any) -> HttpResponse:
        return self._one(request, object_id, lambda: submission_approve(
            submission_id=object_id, by=request_user(request)), "Approved: the result shows on its leaderboard.")

    def invalidate_one(self, request: HttpRequest, object_id: Any) -> HttpResponse:
        return self._one(request, object_id, lambda: submission_invalidate(
            submission_id=object_id, by=request_user(request), reason=request.POST.get("reason", "")),
            "Invalidated: off every leaderboard; its owner sees the reason.")

    def restore_one(self, request: HttpRequest, object_id: Any) -> HttpResponse:
        return self._one(request, object_id, lambda: submission_restore(
            submission_id=object_id, by=request_user(request)), "Restored.")

    def rejudge_view(self, request: HttpRequest) -> HttpResponse:
        """Rejudge by user, problem or a list of ids (what a changelist selection cannot name)."""
        if not self.has_rejudge_permission(request):
            raise PermissionDenied
        form = RejudgeForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                report = submissions_rejudge(
                    by=request_user(request), reason=data["reason"], submission_ids=data["submissions"].split(),
                    username=data["user"].strip() or None, problem=data["problem"].slug if data["problem"] else None)
            except ApplicationError as exc:
                form.add_error(None, exc.message)
            else:
                report_rejudge(self, request, report)
                return HttpResponseRedirect(reverse("admin:submissions_submission_changelist"))
        context = {**self.admin_site.each_context(request), "title": "Rejudge",
                   "opts": Submission._meta, "form": form}
        return TemplateResponse(request, "admin/submissions/rejudge.html", context)


def rejudge_problems(modeladmin: admin.ModelAdmin, request: HttpRequest,
                     queryset: QuerySet[Problem]) -> HttpResponse | None:
    """ProblemAdmin's action: rejudge every judged leaderboard submission of the selected problems."""
    form = _with_reason(request)
    if form is not None and form.is_valid():
        for problem in queryset:
            report_rejudge(modeladmin, request, submissions_rejudge(
                by=request_user(request), reason=form.cleaned_data["reason"], problem=problem.slug))
        return None
    return _ask_reason(modeladmin, request, queryset, action="rejudge_problems",
                       title="Rejudge the problems' leaderboard submissions", form=form or ReasonForm())

"""Minimal web pages: pick a problem, submit, watch. The web issue makes them good."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from config.auth import request_user
from config.exceptions import ApplicationError
from submissions.forms import SubmitForm
from submissions.results import submission_results
from submissions.selectors import problem_get, problem_list, queue_position, submission_get, submission_list
from submissions.services import submission_cancel, submission_create


@login_required
def problem_list_view(request: HttpRequest) -> HttpResponse:
    return render(request, "submissions/problem_list.html", {"problems": problem_list()})


@login_required
def problem_detail_view(request: HttpRequest, slug: str) -> HttpResponse:
    problem = problem_get(slug=slug)
    if problem is None:
        raise Http404("No such problem.")
    version = problem.current_version
    form = SubmitForm(request.POST or None, request.FILES or None,
                      initial={"source": version.templates.get("cpp", "") if version else ""})
    if request.method == "POST" and form.is_valid():
        try:
            submission = submission_create(
                user=request_user(request), problem=slug, language=form.cleaned_data["language"],
                source=form.cleaned_data["source"], mode=form.cleaned_data["mode"], pool=form.cleaned_data["pool"])
        except ApplicationError as exc:
            submission_id = exc.extra.get("submission")
            if submission_id:  # over a quota: the REJECTED record explains why
                messages.error(request, exc.message)
                return redirect("submission-detail", submission_id=submission_id)
            form.add_error(None, exc.message)
        else:
            return redirect("submission-detail", submission_id=submission.pk)
    return render(request, "submissions/problem_detail.html", {"problem": problem, "version": version, "form": form})


@login_required
def submission_list_view(request: HttpRequest) -> HttpResponse:
    submissions = submission_list(user=request_user(request))[:100]
    return render(request, "submissions/submission_list.html", {"submissions": submissions})


@login_required
def submission_detail_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    submission = submission_get(user=request_user(request), submission_id=submission_id)
    if submission is None:
        raise Http404("No such submission.")
    return render(request, "submissions/submission_detail.html", {
        "submission": submission,
        "position": queue_position(submission=submission),
        "results": submission_results(submission=submission),
        "events": list(submission.events.order_by("seq")),
    })


@login_required
@require_POST
def submission_cancel_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    if submission_get(user=request_user(request), submission_id=submission_id) is None:
        raise Http404("No such submission.")
    try:
        submission_cancel(user=request_user(request), submission_id=submission_id)
    except ApplicationError as exc:
        messages.warning(request, exc.message)
    return redirect("submission-detail", submission_id=submission_id)

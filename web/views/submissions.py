"""History, the submission page (full and its live fragment) and cancel."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from config.auth import request_user
from config.exceptions import ApplicationError
from fleets.models import Fleet
from submissions.selectors import problem_list, queue_position, submission_get, submission_list
from submissions.services import submission_cancel
from web import billing_bridge
from web.charts import benchmark_chart
from web.forms import HistoryFilterForm
from web.progress import submission_progress
from web.selectors import cold_start_estimate
from web.statement import highlight_code


@login_required
def submission_list_view(request: HttpRequest) -> HttpResponse:
    form = HistoryFilterForm(request.GET or None, problems=list(problem_list().values_list("slug", "title")),
                             pools=list(Fleet.objects.order_by("name").values_list("name", flat=True)))
    filters = form.selector_filters() if request.GET else {}
    page = Paginator(submission_list(user=request_user(request), filters=filters), 25).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "web/submission_list.html", {
        "form": form, "page": page, "query": query.urlencode(), "filtered": any(filters.values())})


def _context(request: HttpRequest, submission_id: str) -> dict:
    submission = submission_get(user=request.user, submission_id=submission_id)
    if submission is None:
        raise Http404("No such submission.")
    events = list(submission.events.order_by("seq"))
    progress = submission_progress(submission=submission, events=events)
    provisioning = submission.status == "PROVISIONING"
    return {
        "submission": submission,
        "progress": progress,
        "position": queue_position(submission=submission),
        "cold_start_s": cold_start_estimate(fleet=submission.fleet) if provisioning else None,
        "provisioning_elapsed": int((timezone.now() - progress.provisioning_since).total_seconds())
        if provisioning and progress.provisioning_since else None,
        "chart": benchmark_chart(progress.benchmarks),
        "cost": billing_bridge.submission_cost(submission=submission) if submission.is_terminal else None,
        "events": events,
        "is_owner": submission.user_id == request.user.pk,
    }


@login_required
def submission_detail_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    context = _context(request, submission_id)
    submission = context["submission"]
    context["source_html"] = highlight_code(submission.source, submission.language)
    return render(request, "web/submission_detail.html", context)


@login_required
def submission_live_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    """The changing part of the submission page, fetched by the page's script after each event."""
    response = render(request, "web/submission/live.html", _context(request, submission_id))
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def submission_cancel_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    if submission_get(user=request.user, submission_id=submission_id) is None:
        raise Http404("No such submission.")
    try:
        submission_cancel(user=request_user(request), submission_id=submission_id)
    except ApplicationError as exc:
        messages.warning(request, exc.message)
    else:
        messages.info(request, "Cancelling…")
    return redirect("submission-detail", submission_id=submission_id)

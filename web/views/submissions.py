"""History, the submission page (full and its live fragment) and cancel."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from billing.amounts import ZERO
from billing.selectors import submission_cost_parts
from core.auth import request_user
from core.exceptions import ApplicationError, NotFoundError
from fleets.models import Pool
from leaderboard.entries import ENTRY, entry_of, with_entries
from leaderboard.moderation import submission_update
from leaderboard.selectors import (
    confirmation_pending,
    confirmation_running,
    public_source_submission,
    submission_ranked,
    submission_standing,
)
from leaderboard.speed_of_light import submission_light
from submissions.event_visibility import event_payload
from submissions.models import Status
from submissions.offers import EMULATED_TAG
from submissions.results import compile_report
from submissions.selectors import (
    AmbiguousId,
    problem_list,
    queue_position,
    submission_events,
    submission_find,
    submission_get,
    submission_history,
    submission_list,
)
from submissions.services import submission_cancel
from web.charts import benchmark_chart
from web.forms import HistoryFilterForm
from web.progress import submission_progress
from web.selectors import cold_start_estimate
from web.statement import highlight_code


@login_required
def submission_list_view(request: HttpRequest) -> HttpResponse:
    form = HistoryFilterForm(request.GET or None, problems=list(problem_list().values_list("slug", "title")),
                             pools=list(Pool.objects.order_by("name").values_list("name", flat=True)))
    filters = form.selector_filters() if request.GET else {}
    page = Paginator(with_entries(submission_list(user=request_user(request), filters=filters)), 25).get_page(
        request.GET.get("page"))
    for submission in page.object_list:  # its judging and its leaderboard entry came with the row: no query each
        submission.ranked_pending = confirmation_pending(submission=submission)  # type: ignore[attr-defined]
        submission.ranked_score_ms = entry_of(submission).ranked_score_ms  # type: ignore[attr-defined]
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "web/submission_list.html", {
        "form": form, "page": page, "query": query.urlencode(), "filtered": any(filters.values()),
        "emulated_tag": EMULATED_TAG})


# What each part of a submission's cost was for, as its owner reads it.
PHASE_WORDS = {"provisioning": "cold start", "busy": "busy", "idle": "idle after", "draining": "draining"}


def _context(request: HttpRequest, submission_id: str) -> dict:
    submission = submission_get(user=request.user, submission_id=submission_id, related=(ENTRY,))
    if submission is None:
        raise Http404("No such submission.")
    events = list(submission_events(submission=submission))
    progress = submission_progress(submission=submission, events=events)
    for event in events:  # the event log as this viewer may read it (shown, never saved)
        event.payload = event_payload(event_type=event.type, payload=event.payload, staff=request.user.is_staff)
    provisioning = submission.status == Status.PROVISIONING
    parts = submission_cost_parts(submission=submission) if submission.is_terminal else None
    # Each timed case and each score against the floor of the pool's device (shown, never saved).
    light = submission_light(submission=submission)
    progress.benchmarks = light.cases(progress.benchmarks, "benchmarks")
    progress.ranked = light.cases(progress.ranked, "ranked")
    ranked = submission_ranked(submission=submission)
    if ranked is not None:
        ranked["speed_of_light"] = light.score(ranked["score_ms"], "ranked")
        for case in ranked["cases"]:
            case.speed_of_light = light.case(case, "ranked")
    return {
        "submission": submission,
        "entry": entry_of(submission),  # its standing's fields: review, withdrawn, public source
        "progress": progress,
        "position": queue_position(submission=submission),
        "cold_start_s": cold_start_estimate(pool=submission.pool) if provisioning else None,
        "provisioning_elapsed": int((timezone.now() - progress.provisioning_since).total_seconds())
        if provisioning and progress.provisioning_since else None,
        "chart": benchmark_chart(progress.benchmarks),
        "cost": sum(parts.values(), ZERO) if parts is not None else None,
        "cost_parts": [(PHASE_WORDS.get(phase, phase), cost) for phase, cost in (parts or {}).items()],
        "events": events,
        "is_owner": submission.user_id == request.user.pk,
        "emulated_tag": EMULATED_TAG,
        "ranked": ranked,
        "score_light": light.score(submission.score_ms, "benchmarks"),
        # Its rank costs two queries once it has a ranked result; none while its first judging runs.
        "standing": submission_standing(submission=submission),
        # A record's second judging: the submission passed already and says so; the stages are the confirmation's.
        "confirmation_running": confirmation_running(submission=submission),
    }


@login_required
def submission_detail_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    if len(submission_id.replace("-", "")) != 32:  # the start of an id: the page of the one it names
        try:
            found = submission_find(user=request.user, text=submission_id)
        except AmbiguousId as exc:
            return render(request, "error.html", {"status": 400, "message": str(exc)}, status=400)
        if found is None:
            raise Http404("No such submission.")
        return redirect("submission-detail", submission_id=found.pk)
    context = _context(request, submission_id)
    submission = context["submission"]
    context["source_html"] = highlight_code(submission.source, submission.language)
    context["history"] = submission_history(submission=submission)
    context["compile_report"] = compile_report(results={"compile": context["progress"].compile})
    context["has_amdgcn"] = context["compile_report"] is not None and bool(
        (context["progress"].compile or {}).get("report", {}).get("amdgcn_listing"))
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


@login_required
@require_POST
def submission_leaderboard_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    """The owner's switches: withdraw from the leaderboard (or return), make the source public (or not)."""
    choices = {name: request.POST[name] == "1" for name in ("withdrawn", "public_source") if name in request.POST}
    try:
        submission_update(user=request_user(request), submission_id=submission_id, **choices)
    except NotFoundError:
        raise Http404("No such submission.") from None
    except ApplicationError as exc:
        messages.warning(request, exc.message)
    else:
        said = {"withdrawn": ("Withdrawn from the leaderboard.", "Back on the leaderboard."),
                "public_source": ("Your source is public now.", "Your source is private now.")}
        for name, value in choices.items():
            messages.info(request, said[name][0 if value else 1])
    return redirect("submission-detail", submission_id=submission_id)


def submission_source_view(request: HttpRequest, submission_id: str) -> HttpResponse:
    """A source its owner made public, for anyone (invalidated ones stay hidden)."""
    submission = public_source_submission(submission_id=submission_id)
    if submission is None:
        raise Http404("No such public source.")
    return render(request, "web/submission_source.html", {
        "submission": submission, "source_html": highlight_code(submission.source, submission.language)})

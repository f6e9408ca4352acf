"""Problems list, problem page (statement, editor, pool picker, submit) and leaderboard."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from config.exceptions import ApplicationError
from submissions.models import Mode
from submissions.selectors import problem_get, submission_get
from submissions.services import submission_create
from web.forms import SubmitForm
from web.selectors import leaderboard, leaderboard_pools, pool_options, problem_rows
from web.statement import highlight_code, render_statement


def problem_list_view(request: HttpRequest) -> HttpResponse:
    return render(request, "web/problem_list.html", {"rows": problem_rows(user=request.user)})


def _initial(request: HttpRequest, version_templates: dict[str, str], pools: list) -> dict[str, str]:
    """What the editor starts with: a submission being edited again (?from=<id>, the caller's
    own), else the starter template of the chosen (?language=) or the default pool's language."""
    origin = request.GET.get("from")
    if origin and request.user.is_authenticated:
        previous = submission_get(user=request.user, submission_id=origin)
        if previous is not None and previous.user_id == request.user.pk:
            return {"source": previous.source, "language": previous.language, "pool": previous.fleet.name}
    default_pool = next((p for p in pools if p.name == request.GET.get("pool")), None) or (pools[0] if pools else None)
    language = request.GET.get("language") or (default_pool.languages[0] if default_pool and default_pool.languages
                                               else "cpp")
    if language not in version_templates and version_templates:
        language = next(iter(version_templates))
    initial = {"source": version_templates.get(language, ""), "language": language}
    if default_pool is not None:
        initial["pool"] = default_pool.name
    return initial


def problem_detail_view(request: HttpRequest, slug: str) -> HttpResponse:
    problem = problem_get(slug=slug)
    if problem is None:
        raise Http404("No such problem.")
    version = problem.current_version
    templates = dict(version.templates) if version else {}
    pools = pool_options()
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        form = SubmitForm(request.POST, request.FILES, pools=pools)
        if form.is_valid():
            data = form.cleaned_data
            try:
                submission = submission_create(user=request.user, problem=slug, language=data["language"],
                                               source=data["source"], mode=data["mode"], pool=data["pool"])
            except ApplicationError as exc:
                rejected = exc.extra.get("submission")
                if rejected:  # over a quota: the REJECTED record explains why
                    messages.error(request, exc.message)
                    return redirect("submission-detail", submission_id=rejected)
                form.add_error(None, exc.message)
            else:
                return redirect("submission-detail", submission_id=submission.pk)
    else:
        form = SubmitForm(initial=_initial(request, templates, pools), pools=pools)
    languages = {lang for p in pools for lang in p.submittable_languages}
    return render(request, "web/problem_detail.html", {
        "problem": problem, "version": version, "form": form, "pools": pools,
        "statement": render_statement(version.statement if version else ""),
        "templates": [(lang, highlight_code(text, lang)) for lang, text in sorted(templates.items())],
        "signature_html": highlight_code(f"{version.signature};" if version else "", "cpp"),
        "languages_available": languages,
        "mode_check": Mode.CHECK, "mode_benchmark": Mode.BENCHMARK, "mode_compile": Mode.COMPILE,
        "any_compile_only": any(p.compile_only for p in pools),
    })


def leaderboard_view(request: HttpRequest, slug: str) -> HttpResponse:
    problem = problem_get(slug=slug)
    if problem is None:
        raise Http404("No such problem.")
    pools = leaderboard_pools(problem=problem)
    chosen = next((p for p in pools if p.name == request.GET.get("pool")), None) or (pools[0] if pools else None)
    rows = leaderboard(problem=problem, fleet=chosen) if chosen else []
    me = request.user.pk if request.user.is_authenticated else None
    return render(request, "web/leaderboard.html", {
        "problem": problem, "pools": pools, "pool": chosen, "rows": rows, "me": me})

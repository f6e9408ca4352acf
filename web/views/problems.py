"""Problems list, problem page (statement, editor, pool picker, submit) and leaderboard."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from core.exceptions import ApplicationError
from leaderboard.review import SCORING
from leaderboard.speed_of_light import best_light
from limits.selectors import suspended_sentence, user_standing
from submissions.browse import problem_facets
from submissions.models import Mode
from submissions.offers import EMULATED_LABEL, emulated_limits
from submissions.selectors import CASE_KINDS, problem_get, problem_interface, submission_get
from submissions.services import submission_create
from web.forms import ProblemFilterForm, SubmitForm
from web.selectors import leaderboard, leaderboard_pools, pool_options, problem_rows
from web.statement import highlight_code, render_statement


def problem_list_view(request: HttpRequest) -> HttpResponse:
    form = ProblemFilterForm(request.GET or None)
    malformed = form.is_bound and not form.is_valid()
    filters = form.filters()
    facets = problem_facets(filters=filters)
    form.show_counts(facets)
    return render(request, "web/problem_list.html", {
        "rows": [] if malformed else problem_rows(user=request.user, filters=filters),
        "default_pool": settings.HIPJUDGE_DEFAULT_POOL, "filter_form": form, "total": facets.total,
        "filtered": filters.active or malformed,
    }, status=400 if malformed else 200)


def _initial(request: HttpRequest, version_templates: dict[str, str], pools: list) -> dict[str, str]:
    """What the editor starts with: a submission being edited again (?from=<id>, the caller's
    own), else the starter template of the chosen (?language=) or the default pool's language.
    The pool picked is one open to the caller: the one asked for (or edited from), else the
    server's default pool, else the first open one."""
    offered = [p for p in pools if p.access.open] or pools
    asked = request.GET.get("pool")
    origin = request.GET.get("from")
    if origin and request.user.is_authenticated:
        previous = submission_get(user=request.user, submission_id=origin)
        if previous is not None and previous.user_id == request.user.pk:
            pool = _pool_among(offered, previous.pool.name)
            return {"source": previous.source, "language": previous.language,
                    **({"pool": pool.name} if pool is not None else {})}
    default_pool = _pool_among(offered, asked)
    language = request.GET.get("language") or (default_pool.languages[0] if default_pool and default_pool.languages
                                               else "cpp")
    if language not in version_templates and version_templates:
        language = next(iter(version_templates))
    initial = {"source": version_templates.get(language, ""), "language": language}
    if default_pool is not None:
        initial["pool"] = default_pool.name
    return initial


def _pool_among(offered: list, name: str | None) -> Any:
    """The pool called `name` among those offered, else the server's default pool, else the first."""
    return (next((p for p in offered if p.name == name), None)
            or next((p for p in offered if p.name == settings.HIPJUDGE_DEFAULT_POOL), None)
            or (offered[0] if offered else None))


# What each kind of case is for, as the problem page says it.
CASE_WORDS = {"tests": "Tests: checked against the reference",
              "benchmarks": "Benchmarks: timed on public inputs (mode benchmark and leaderboard)",
              "ranked": "Ranked: timed on secret inputs; only these rank (mode leaderboard)"}

def problem_detail_view(request: HttpRequest, slug: str) -> HttpResponse:
    problem = problem_get(slug=slug)
    if problem is None:
        raise Http404("No such problem.")
    version = problem.current_version
    templates = dict(version.templates) if version else {}
    standing = user_standing(user=request.user)
    pools = pool_options(user=request.user, standing=standing)
    status = 200
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        form = SubmitForm(request.POST, request.FILES, pools=pools)
        if form.is_valid():
            data = form.cleaned_data
            try:
                submission = submission_create(user=request.user, problem=slug, language=data["language"],
                                               source=data["source"], mode=data["mode"], pool_name=data["pool"])
            except ApplicationError as exc:
                # Said on the form, which keeps the source. A refusal (suspended, pool access, quota,
                # cap) stores nothing and answers with its own status (403, 402, 429).
                form.add_error(None, exc.message)
                if exc.status_code != 400:
                    status = exc.status_code
            else:
                return redirect("submission-detail", submission_id=submission.pk)
    else:
        form = SubmitForm(initial=_initial(request, templates, pools), pools=pools)
    languages = {lang for p in pools for lang in p.submittable_languages}
    interface = problem_interface(version=version)
    return render(request, "web/problem_detail.html", {
        "problem": problem, "version": version, "form": form, "pools": pools,
        "statement": render_statement(version.statement if version else ""),
        "templates": [(lang, highlight_code(text, lang)) for lang, text in sorted(templates.items())],
        "signatures": [(lang, highlight_code(text, "python") if lang == "triton" else highlight_code(f"{text};", "cpp"))
                       for lang, text in interface["signatures"].items()],
        "parameters": interface["parameters"],
        "case_groups": [(CASE_WORDS[kind], found) for kind in CASE_KINDS if (found := interface["cases"][kind])],
        "languages_available": languages,
        "mode_check": Mode.CHECK, "mode_benchmark": Mode.BENCHMARK, "mode_compile": Mode.COMPILE,
        "mode_leaderboard": Mode.LEADERBOARD, "scoring": SCORING,
        "ranked": bool(((version.bundle or {}).get("definition") or {}).get("ranked")) if version else False,
        "any_compile_only": any(p.compile_only for p in pools),
        "emulated_note": emulated_limits() if any(p.emulated for p in pools) else "",
        "emulated_label": EMULATED_LABEL,
        "suspended_note": suspended_sentence(standing) if standing.suspended else "",
        "lights": best_light(problem_ids=[problem.pk]).get(problem.pk, []),
    }, status=status)


def leaderboard_view(request: HttpRequest, slug: str) -> HttpResponse:
    problem = problem_get(slug=slug)
    if problem is None:
        raise Http404("No such problem.")
    pools = leaderboard_pools(problem=problem)
    # The pool asked for, else the server's default pool, as the API and the CLI answer.
    chosen = next((f for f in pools if f.name == request.GET.get("pool")), None) or next(
        (f for f in pools if f.name == settings.HIPJUDGE_DEFAULT_POOL), None) or (pools[0] if pools else None)
    rows = leaderboard(problem=problem, pool=chosen) if chosen else []
    me = request.user.pk if request.user.is_authenticated else None
    return render(request, "web/leaderboard.html", {
        "problem": problem, "pools": pools, "pool": chosen, "rows": rows, "me": me, "scoring": SCORING})

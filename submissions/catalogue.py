"""Load problems/<slug>/ bundles into Problem / ProblemVersion rows.

A version is keyed by the bundle's content hash (problem.yaml + reference.py): loading the same
bundle twice changes nothing, an edited one becomes the new current version, and submissions keep
pointing at the exact version they were judged against.

Loading never half-loads: every bundle is read and checked first (the loader's rules, then the
columns' limits), and only then are the good ones written, each problem in its own transaction. A
bad bundle is reported with its file and reason and written not at all; the good ones load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction

from agent.problems import Problem as Bundle
from agent.problems import ProblemError, load_problem_dir
from submissions.models import Problem, ProblemVersion


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


def problem_store(bundle: Bundle) -> str:
    """Make the bundle the problem's current version; returns "created", "updated" or "unchanged"."""
    with transaction.atomic():
        problem, created = Problem.objects.update_or_create(slug=bundle.slug, defaults={
            "title": bundle.title, "difficulty": bundle.difficulty, "tags": list(bundle.tags),
            "data_types": list(bundle.data_types), "is_active": True})
        version, new_version = ProblemVersion.objects.update_or_create(
            problem=problem, content_hash=bundle.content_hash,
            defaults={"bundle": bundle.to_bundle(), "statement": bundle.statement,
                      "signature": bundle.c_signature(), "templates": dict(bundle.templates)})
        changed = problem.current_version_id != version.pk
        if changed:
            problem.current_version = version
            problem.save(update_fields=["current_version", "updated_at"])
    if created:
        return "created"
    return "updated" if changed or new_version else "unchanged"


def _column_errors(bundle: Bundle) -> str | None:
    """What the database would refuse of the bundle (a value over a column's limit), found before
    anything is written; None when it fits."""
    row = Problem(slug=bundle.slug, title=bundle.title, difficulty=bundle.difficulty, tags=list(bundle.tags),
                  data_types=list(bundle.data_types))
    try:
        row.clean_fields(exclude=["current_version", "labels"])
    except ValidationError as exc:
        return "; ".join(f"problem.yaml: {name}: {' '.join(messages)}"
                         for name, messages in exc.message_dict.items())
    return None


def catalogue_read(*, root: Path) -> tuple[list[Bundle], dict[str, str]]:
    """Parse and check every problems/<slug>/ bundle (the NumPy reference is dry-run, the values
    fit their columns): the bundles, and an error per folder that is not one. Touches no database."""
    bundles: list[Bundle] = []
    errors: dict[str, str] = {}
    for folder in sorted(p for p in Path(root).iterdir() if (p / "problem.yaml").is_file()):
        try:
            bundle = load_problem_dir(folder)
        except ProblemError as exc:
            errors[folder.name] = str(exc)
            continue
        if (refused := _column_errors(bundle)) is not None:
            errors[folder.name] = refused
        else:
            bundles.append(bundle)
    return bundles, errors


def problems_load(*, root: Path, retire_missing: bool = True) -> LoadReport:
    bundles, errors = catalogue_read(root=root)
    report = LoadReport(errors=errors)
    seen = {bundle.slug for bundle in bundles} | set(errors)
    for bundle in bundles:
        try:
            outcome = problem_store(bundle)
        except DatabaseError as exc:  # what the checks above did not foresee: this problem only, rolled back
            report.errors[bundle.slug] = f"the database refused it ({type(exc).__name__}: {exc})".strip()
            continue
        getattr(report, outcome).append(bundle.slug)
    if retire_missing:
        for problem in Problem.objects.filter(is_active=True).exclude(slug__in=seen):
            problem.is_active = False
            problem.save(update_fields=["is_active", "updated_at"])
            report.retired.append(problem.slug)
    return report

"""Load problems/<slug>/ bundles into Problem / ProblemVersion rows.

A version is keyed by the bundle's content hash (problem.yaml + reference.py): loading the same
bundle twice changes nothing, an edited one becomes the new current version, and submissions keep
pointing at the exact version they were judged against.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

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


def catalogue_read(*, root: Path) -> tuple[list[Bundle], dict[str, str]]:
    """Parse and check every problems/<slug>/ bundle (the NumPy reference is dry-run): the bundles,
    and an error per folder that is not one. Touches no database."""
    bundles: list[Bundle] = []
    errors: dict[str, str] = {}
    for folder in sorted(p for p in Path(root).iterdir() if (p / "problem.yaml").is_file()):
        try:
            bundles.append(load_problem_dir(folder))
        except ProblemError as exc:
            errors[folder.name] = str(exc)
    return bundles, errors


def problems_load(*, root: Path, retire_missing: bool = True) -> LoadReport:
    bundles, errors = catalogue_read(root=root)
    report = LoadReport(errors=errors)
    seen = {bundle.slug for bundle in bundles} | set(errors)
    for bundle in bundles:
        getattr(report, problem_store(bundle)).append(bundle.slug)
    if retire_missing:
        for problem in Problem.objects.filter(is_active=True).exclude(slug__in=seen):
            problem.is_active = False
            problem.save(update_fields=["is_active", "updated_at"])
            report.retired.append(problem.slug)
    return report

"""Browsing the problem list: filters by tag, data type and difficulty (they combine) and the counts a
filter form shows beside each value (how many users solved each problem is the leaderboard's:
leaderboard.selectors.solved_counts). Each function is one query, whatever the number of problems."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import QuerySet

from submissions.models import Problem, label_key
from submissions.selectors import problem_list

# agent.problems.schema.DIFFICULTIES (not imported: that module brings NumPy into the web process).
DIFFICULTIES = ("easy", "medium", "hard")
# A tag (matrix-cores) or a data type (fp8_e4m3fnuz, bfloat16) as a filter takes it, lowercased.
FILTER_VALUE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
FILTER_VALUE_HELP = "lowercase letters, digits, dashes and underscores, up to 40"

@dataclass(frozen=True)
class ProblemFilters:
    """Empty strings mean "any"."""

    tag: str = ""
    type: str = ""
    difficulty: str = ""

    @property
    def active(self) -> bool:
        return bool(self.tag or self.type or self.difficulty)

    def matches(self, *, difficulty: str, tags: Iterable[str], data_types: Iterable[str]) -> bool:
        return ((not self.tag or self.tag in tags) and (not self.type or self.type in data_types)
                and (not self.difficulty or self.difficulty == difficulty))


def problems_filtered(*, filters: ProblemFilters) -> QuerySet[Problem]:
    """The listed problems that have the tag AND the data type AND the difficulty asked for."""
    qs = problem_list()
    if filters.tag:
        qs = qs.filter(labels__contains=label_key("tag", filters.tag))
    if filters.type:
        qs = qs.filter(labels__contains=label_key("type", filters.type))
    if filters.difficulty:
        qs = qs.filter(difficulty=filters.difficulty)
    return qs


@dataclass
class Facets:
    """Every value of each filter (none left out, so any can be chosen) with the number of problems it
    would list beside the other two filters as they are; `total` is every listed problem."""

    total: int = 0
    difficulties: list[tuple[str, int]] = field(default_factory=list)
    tags: list[tuple[str, int]] = field(default_factory=list)
    types: list[tuple[str, int]] = field(default_factory=list)


def problem_facets(*, filters: ProblemFilters) -> Facets:
    rows = list(problem_list().values_list("difficulty", "tags", "data_types"))
    tags: Counter[str] = Counter()
    types: Counter[str] = Counter()
    difficulties: Counter[str] = Counter()
    every_tag: set[str] = set()
    every_type: set[str] = set()
    for difficulty, row_tags, row_types in rows:
        row_tags, row_types = list(row_tags or []), list(row_types or [])
        every_tag.update(row_tags)
        every_type.update(row_types)
        if ProblemFilters(type=filters.type, difficulty=filters.difficulty).matches(
                difficulty=difficulty, tags=row_tags, data_types=row_types):
            tags.update(set(row_tags))
        if ProblemFilters(tag=filters.tag, difficulty=filters.difficulty).matches(
                difficulty=difficulty, tags=row_tags, data_types=row_types):
            types.update(set(row_types))
        if ProblemFilters(tag=filters.tag, type=filters.type).matches(
                difficulty=difficulty, tags=row_tags, data_types=row_types):
            difficulties[difficulty] += 1
    return Facets(total=len(rows),
                  difficulties=[(d, difficulties[d]) for d in DIFFICULTIES],
                  tags=[(t, tags[t]) for t in sorted(every_tag)], types=[(t, types[t]) for t in sorted(every_type)])


"""A submission's LeaderboardEntry, read or written. A submission has no entry until the leaderboard
first writes one (a ranked result, a review, a switch of its owner or of staff): a read takes a
missing row as the defaults, a write creates it under the submission's lock."""

from __future__ import annotations

from django.db.models import QuerySet

from leaderboard.models import LeaderboardEntry
from submissions.models import Submission


def entry_of(submission: Submission) -> LeaderboardEntry:
    """The submission's entry (the one loaded with it where the query selected `entry`), or an
    unsaved one with the defaults. Django remembers a row it loaded, or that there is none, so a
    second read asks nothing again (each read of a missing one gives a new unsaved entry)."""
    try:
        return submission.entry  # type: ignore[attr-defined, no-any-return]
    except LeaderboardEntry.DoesNotExist:
        return LeaderboardEntry(submission=submission)


def new_without_entry(submission: Submission) -> Submission:
    """A submission just created, known to have no entry yet: entry_of answers the defaults without
    asking the database (the submit path's response reads it)."""
    Submission.entry.related.set_cached_value(submission, None)  # type: ignore[attr-defined]
    return submission


def entry_locked(submission: Submission) -> LeaderboardEntry:
    """The submission's entry for a write, created if it has none: the caller holds the submission's
    row locked (submissions.services.lock_submission), so nobody else creates or changes it meanwhile."""
    entry, _ = LeaderboardEntry.objects.get_or_create(submission=submission)
    submission.entry = entry  # type: ignore[attr-defined]
    return entry


# The relation that loads a submission's entry with it (select_related), for a caller's own query.
ENTRY = "entry"


def with_entries(queryset: QuerySet[Submission]) -> QuerySet[Submission]:
    """The submissions, each loaded with its entry (or that it has none): entry_of asks nothing more."""
    return queryset.select_related(ENTRY)

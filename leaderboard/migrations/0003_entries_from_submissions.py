"""Copy the leaderboard's columns of each submission into its LeaderboardEntry (submissions 0012 then
drops them there). Only submissions with something to keep get a row: a missing entry reads as the
defaults. Reversed, the entries are copied back (submissions 0012, reversed first, re-adds the columns)."""

from django.db import migrations
from django.db.models import Q

FIELDS = ("ranked_score_ms", "ranked_ci95_lo_ms", "ranked_ci95_hi_ms", "ranked_speedup", "ranked_at",
          "ranked_reason", "review", "review_reason", "reviewed_by_id", "reviewed_at", "invalidated_at",
          "invalidated_reason", "invalidated_by_id", "withdrawn_at", "public_source")
# A submission whose columns all hold their defaults has nothing to copy.
KEPT = (Q(mode="leaderboard") | Q(ranked_score_ms__isnull=False) | Q(ranked_ci95_lo_ms__isnull=False)
        | Q(ranked_ci95_hi_ms__isnull=False) | Q(ranked_speedup__isnull=False) | Q(ranked_at__isnull=False)
        | ~Q(ranked_reason="") | ~Q(review="") | ~Q(review_reason="") | Q(reviewed_by_id__isnull=False)
        | Q(reviewed_at__isnull=False) | Q(invalidated_at__isnull=False) | ~Q(invalidated_reason="")
        | Q(invalidated_by_id__isnull=False) | Q(withdrawn_at__isnull=False) | Q(public_source=True))
BATCH = 1000


def entries_from_submissions(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    LeaderboardEntry = apps.get_model("leaderboard", "LeaderboardEntry")
    batch = []
    for row in Submission.objects.filter(KEPT).order_by("pk").values("pk", *FIELDS).iterator(chunk_size=BATCH):
        batch.append(LeaderboardEntry(submission_id=row.pop("pk"), **row))
        if len(batch) == BATCH:
            LeaderboardEntry.objects.bulk_create(batch)
            batch = []
    LeaderboardEntry.objects.bulk_create(batch)


def submissions_from_entries(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    LeaderboardEntry = apps.get_model("leaderboard", "LeaderboardEntry")
    for row in LeaderboardEntry.objects.order_by("pk").values("submission_id", *FIELDS).iterator(chunk_size=BATCH):
        Submission.objects.filter(pk=row.pop("submission_id")).update(**row)
    LeaderboardEntry.objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboard", "0002_leaderboardentry"),
        ("submissions", "0011_submission_language_triton"),
    ]

    operations = [
        migrations.RunPython(entries_from_submissions, submissions_from_entries),
    ]

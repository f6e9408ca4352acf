"""The leaderboard's own rows: a submission's standing on it (LeaderboardEntry) and each ranked case
of a judging (RankedCaseResult). Submissions keeps the Judging's ranked figures, which the runner
writes; what the leaderboard decides from them (what shows, what waits for staff) lives here."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Review(models.TextChoices):
    NONE = "", "Not held"
    HELD = "held", "Under review"
    # A rejudge's new result waits for staff while the earlier (already shown) result keeps showing.
    PENDING = "pending", "New result under review"
    APPROVED = "approved", "Approved"


class LeaderboardEntry(models.Model):
    """Where one submission stands: the ranked result that counts, its review, and the switches of
    staff (invalidate) and of its owner (withdraw, public source). A submission has none until the
    leaderboard first writes one; reads take a missing row as the defaults (leaderboard.entries)."""

    submission = models.OneToOneField("submissions.Submission", primary_key=True, on_delete=models.CASCADE,
                                      related_name="entry")
    # The ranked result that counts (mode leaderboard): kept while a rejudge runs, replaced by its verdict.
    ranked_score_ms = models.FloatField(null=True, blank=True, help_text="Geometric mean of the ranked cases' means.")
    ranked_ci95_lo_ms = models.FloatField(null=True, blank=True)
    ranked_ci95_hi_ms = models.FloatField(null=True, blank=True)
    ranked_speedup = models.FloatField(null=True, blank=True, help_text="Against the problem's own solution.")
    ranked_at = models.DateTimeField(null=True, blank=True)
    ranked_reason = models.TextField(blank=True, help_text="Why the submission is not ranked (the judge's words).")
    # Moderation: held for review, invalidated by staff (hidden, never deleted), withdrawn by its owner.
    review = models.CharField(max_length=8, choices=Review.choices, default=Review.NONE, blank=True)
    review_reason = models.TextField(blank=True)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    invalidated_at = models.DateTimeField(null=True, blank=True)
    invalidated_reason = models.TextField(blank=True)
    invalidated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="+")
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    public_source = models.BooleanField(default=False, help_text="Its owner lets anyone read the source.")

    class Meta:
        verbose_name_plural = "leaderboard entries"
        indexes = [models.Index(fields=["ranked_score_ms"], name="leaderboard_entry_score_idx")]

    def __str__(self) -> str:
        return f"{str(self.submission_id)[:8]} {self.ranked_score_ms}"


# The columns of an entry that say where it stands (the submission key aside).
ENTRY_FIELDS = tuple(f.name for f in LeaderboardEntry._meta.concrete_fields if f.name != "submission")


class RankedCaseResult(models.Model):
    """One ranked case of a judging, as the agent's RANKED_RESULT reported it."""

    judging = models.ForeignKey("submissions.Judging", on_delete=models.CASCADE, related_name="ranked_cases")
    case = models.CharField(max_length=200)
    index = models.PositiveSmallIntegerField()
    runs = models.PositiveIntegerField()
    mean_ms = models.FloatField()
    median_ms = models.FloatField()
    ci95_lo_ms = models.FloatField()
    ci95_hi_ms = models.FloatField()
    reference_mean_ms = models.FloatField(null=True, blank=True)
    reference_ci95_lo_ms = models.FloatField(null=True, blank=True)
    reference_ci95_hi_ms = models.FloatField(null=True, blank=True)
    speedup = models.FloatField(null=True, blank=True)
    gflops = models.FloatField(null=True, blank=True)
    gbps = models.FloatField(null=True, blank=True)

    class Meta:
        # Created by submissions (migration 0002) and kept when the model moved here: no data moved.
        db_table = "submissions_rankedcaseresult"
        ordering = ["judging", "index"]

    def __str__(self) -> str:
        return f"{self.judging} {self.case}"

"""The leaderboard's own rows: each ranked case of a judging. The ranked fields of a Submission and
a Judging stay on those models (submissions), where the runner writes them."""

from __future__ import annotations

from django.db import models


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

"""Every submission made before rejudges existed gets its first judging, so its history starts there."""

from typing import Any

from django.db import migrations


def first_judgings(apps: Any, schema_editor: Any) -> None:
    Submission = apps.get_model("submissions", "Submission")
    Judging = apps.get_model("submissions", "Judging")
    for submission in Submission.objects.filter(judging__isnull=True).iterator(chunk_size=500):
        judging = Judging.objects.create(
            submission=submission, number=1, kind="user", problem_version_id=submission.problem_version_id,
            first_attempt=1, status=submission.status, status_reason=submission.status_reason,
            score_ms=submission.score_ms, summary=submission.summary, finished_at=submission.finished_at)
        Submission.objects.filter(pk=submission.pk).update(judging=judging)


class Migration(migrations.Migration):
    dependencies = [("submissions", "0002_ranked_pass")]
    operations = [migrations.RunPython(first_judgings, migrations.RunPython.noop)]

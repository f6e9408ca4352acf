"""Submission.fleet becomes .pool (fleets.Fleet is now Pool): the column fleet_id and the indexes
keep their names, so the database is not touched."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("fleets", "0005_fleet_becomes_pool"),
        ("submissions", "0009_rankedcaseresult_to_leaderboard"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveIndex(model_name="submission", name="submissions_fleet_i_fb6263_idx"),
                migrations.RemoveIndex(model_name="submission", name="submissions_problem_3479e2_idx"),
                migrations.RenameField(model_name="submission", old_name="fleet", new_name="pool"),
                migrations.AlterField(
                    model_name="submission", name="pool",
                    field=models.ForeignKey(db_column="fleet_id", on_delete=django.db.models.deletion.PROTECT,
                                            related_name="submissions", to="fleets.pool"),
                ),
                migrations.AddIndex(
                    model_name="submission",
                    index=models.Index(fields=["pool", "status", "created_at"], name="submissions_fleet_i_fb6263_idx"),
                ),
                migrations.AddIndex(
                    model_name="submission",
                    index=models.Index(fields=["problem", "pool", "ranked_score_ms"],
                                       name="submissions_problem_3479e2_idx"),
                ),
            ],
        ),
    ]

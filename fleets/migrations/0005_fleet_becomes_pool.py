"""Fleet becomes Pool, and VMInstance.fleet / VMJob.fleet become .pool: names only. The table
(fleets_fleet), the columns (fleet_id) and the indexes keep their names, so the database is not
touched: every operation is state only."""

import django.db.models.deletion
from django.db import migrations, models


def renamed_fk(model_name, index_name, index_fields, on_delete, related_name):
    return [
        migrations.RemoveIndex(model_name=model_name, name=index_name),
        migrations.RenameField(model_name=model_name, old_name="fleet", new_name="pool"),
        migrations.AlterField(
            model_name=model_name, name="pool",
            field=models.ForeignKey(db_column="fleet_id", on_delete=on_delete, related_name=related_name,
                                    to="fleets.pool"),
        ),
        migrations.AddIndex(model_name=model_name, index=models.Index(fields=index_fields, name=index_name)),
    ]


class Migration(migrations.Migration):

    # After every migration that refers to fleets.Fleet, so that the rename reaches their references.
    dependencies = [
        ("billing", "0003_platform_fault"),
        ("fleets", "0004_fleet_peaks_by_type"),
        ("limits", "0001_initial"),
        ("submissions", "0009_rankedcaseresult_to_leaderboard"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterModelTable(name="fleet", table="fleets_fleet"),
                migrations.RenameModel(old_name="Fleet", new_name="Pool"),
                *renamed_fk("vminstance", "fleets_vmin_fleet_i_7b7554_idx", ["pool", "state"],
                            django.db.models.deletion.PROTECT, "vms"),
                *renamed_fk("vmjob", "fleets_vmjo_fleet_i_5b4954_idx", ["pool", "started_at"],
                            django.db.models.deletion.CASCADE, "+"),
            ],
        ),
    ]

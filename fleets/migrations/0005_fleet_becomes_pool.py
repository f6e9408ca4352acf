"""Fleet becomes Pool, and VMInstance.fleet / VMJob.fleet become .pool: names only. The table
(fleets_fleet), the columns (fleet_id) and the indexes keep their names, so the database is not
touched: every operation but the content type's rename is state only."""

import django.db.models.deletion
from django.db import migrations, models

from core.model_renames import content_type_rename


def forwards(apps, schema_editor):
    content_type_rename(apps, schema_editor, app_label="fleets", old="fleet", new="pool",
                        old_verbose="fleet", new_verbose="pool")


def backwards(apps, schema_editor):
    content_type_rename(apps, schema_editor, app_label="fleets", old="pool", new="fleet",
                        old_verbose="pool", new_verbose="fleet")


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
        ("auth", "0012_alter_user_first_name_max_length"),
        ("billing", "0003_platform_fault"),
        ("contenttypes", "0002_remove_content_type_name"),
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
        migrations.RunPython(forwards, backwards),
    ]

"""FleetAccess becomes PoolGroupAccess, its key .fleet becomes .pool (fleets.Fleet is now Pool):
the table (limits_fleetaccess) and the column (fleet_id) keep their names, so the database is not
touched: every operation but the content type's rename is state only."""

import django.db.models.deletion
from django.db import migrations, models

from core.model_renames import content_type_rename


def forwards(apps, schema_editor):
    content_type_rename(apps, schema_editor, app_label="limits", old="fleetaccess", new="poolgroupaccess",
                        old_verbose="paid pool access", new_verbose="paid pool access")


def backwards(apps, schema_editor):
    content_type_rename(apps, schema_editor, app_label="limits", old="poolgroupaccess", new="fleetaccess",
                        old_verbose="paid pool access", new_verbose="paid pool access")


class Migration(migrations.Migration):

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("fleets", "0005_fleet_becomes_pool"),
        ("limits", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterModelTable(name="fleetaccess", table="limits_fleetaccess"),
                migrations.RenameModel(old_name="FleetAccess", new_name="PoolGroupAccess"),
                migrations.RenameField(model_name="poolgroupaccess", old_name="fleet", new_name="pool"),
                migrations.AlterField(
                    model_name="poolgroupaccess", name="pool",
                    field=models.OneToOneField(db_column="fleet_id", on_delete=django.db.models.deletion.CASCADE,
                                               primary_key=True, related_name="access", serialize=False,
                                               to="fleets.pool", verbose_name="pool"),
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]

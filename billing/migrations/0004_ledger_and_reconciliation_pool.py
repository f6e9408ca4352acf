"""LedgerEntry.fleet and ReconciliationReport.fleet become .pool (fleets.Fleet is now Pool): the
columns (fleet_id) and the index keep their names, so the database is not touched. The rate source
"fleet" keeps its stored value; only its label says pool."""

import django.db.models.deletion
from django.db import migrations, models

RATE_SOURCES = [("dstack", "dstack instance price"), ("fleet", "pool hourly rate"), ("", "not a rate (correction)")]


class Migration(migrations.Migration):

    dependencies = [
        ("billing", "0003_platform_fault"),
        ("fleets", "0005_fleet_becomes_pool"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveIndex(model_name="ledgerentry", name="billing_led_fleet_i_9f61ec_idx"),
                migrations.RenameField(model_name="ledgerentry", old_name="fleet", new_name="pool"),
                migrations.AlterField(
                    model_name="ledgerentry", name="pool",
                    field=models.ForeignKey(db_column="fleet_id", on_delete=django.db.models.deletion.PROTECT,
                                            related_name="ledger_entries", to="fleets.pool"),
                ),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(fields=["pool", "period_start"], name="billing_led_fleet_i_9f61ec_idx"),
                ),
                migrations.RenameField(model_name="reconciliationreport", old_name="fleet", new_name="pool"),
                migrations.AlterField(
                    model_name="reconciliationreport", name="pool",
                    field=models.ForeignKey(db_column="fleet_id", on_delete=django.db.models.deletion.CASCADE,
                                            related_name="reconciliations", to="fleets.pool"),
                ),
            ],
        ),
        migrations.AlterField(
            model_name="ledgerentry", name="rate_source",
            field=models.CharField(blank=True, choices=RATE_SOURCES, max_length=16),
        ),
        migrations.AlterField(
            model_name="vmaccrual", name="price_source",
            field=models.CharField(blank=True, choices=RATE_SOURCES, max_length=16),
        ),
    ]

"""RankedCaseResult moved here from submissions: its table (submissions_rankedcaseresult) stays
and no row moves; only Django's state changes, and the content type follows the model so that
permissions given on it still hold."""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def _relabel(apps: Any, old: str, new: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    if not content_type.objects.filter(app_label=new, model="rankedcaseresult").exists():
        content_type.objects.filter(app_label=old, model="rankedcaseresult").update(app_label=new)


def content_type_follows(apps: Any, schema_editor: Any) -> None:
    _relabel(apps, "submissions", "leaderboard")


def content_type_returns(apps: Any, schema_editor: Any) -> None:
    _relabel(apps, "leaderboard", "submissions")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('submissions', '0009_rankedcaseresult_to_leaderboard'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='RankedCaseResult',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('case', models.CharField(max_length=200)),
                    ('index', models.PositiveSmallIntegerField()),
                    ('runs', models.PositiveIntegerField()),
                    ('mean_ms', models.FloatField()),
                    ('median_ms', models.FloatField()),
                    ('ci95_lo_ms', models.FloatField()),
                    ('ci95_hi_ms', models.FloatField()),
                    ('reference_mean_ms', models.FloatField(blank=True, null=True)),
                    ('reference_ci95_lo_ms', models.FloatField(blank=True, null=True)),
                    ('reference_ci95_hi_ms', models.FloatField(blank=True, null=True)),
                    ('speedup', models.FloatField(blank=True, null=True)),
                    ('gflops', models.FloatField(blank=True, null=True)),
                    ('gbps', models.FloatField(blank=True, null=True)),
                    ('judging', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ranked_cases', to='submissions.judging')),
                ],
                options={
                    'db_table': 'submissions_rankedcaseresult',
                    'ordering': ['judging', 'index'],
                },
            ),
        ]),
        migrations.RunPython(content_type_follows, content_type_returns),
    ]

"""RankedCaseResult moves to the leaderboard app (leaderboard 0001): removed from submissions' state
only, its table stays where it is. The help texts name the module records moved to."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0008_problem_data_types_and_labels'),
    ]

    operations = [
        migrations.AlterField(
            model_name='judging',
            name='confirms',
            field=models.ForeignKey(blank=True, help_text='The judging whose record this one confirms (leaderboard.records).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='submissions.judging'),
        ),
        migrations.AlterField(
            model_name='judging',
            name='record',
            field=models.BooleanField(default=False, help_text='Its ranked result is a record: it ranks once a second judging confirms it (leaderboard.records).'),
        ),
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(
                name='RankedCaseResult',
            ),
        ]),
    ]

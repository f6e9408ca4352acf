"""Fleet became Pool (and limits' FleetAccess PoolGroupAccess) with no table, column or index
renamed: the migrations' content type step keeps staff grants made under the old names."""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from fleets.models import Pool, VMInstance
from limits.models import PoolGroupAccess
from submissions.models import Submission

pytestmark = pytest.mark.django_db
POOL_MIGRATION = import_module("fleets.migrations.0005_fleet_becomes_pool")
ACCESS_MIGRATION = import_module("limits.migrations.0002_fleetaccess_becomes_poolgroupaccess")
EDITOR = SimpleNamespace(connection=connection)  # all the step reads of a schema editor: the alias


@pytest.fixture(autouse=True)
def fresh_content_type_cache() -> Any:
    yield
    ContentType.objects.clear_cache()  # the renames above are rolled back with the test's transaction


def codenames(group: Group) -> list[str]:
    return sorted(group.permissions.values_list("codename", flat=True))


def test_the_tables_and_columns_keep_their_names() -> None:
    assert (Pool._meta.db_table, PoolGroupAccess._meta.db_table) == ("fleets_fleet", "limits_fleetaccess")
    for model in (VMInstance, Submission, PoolGroupAccess):
        assert model._meta.get_field("pool").column == "fleet_id"


def test_grants_made_under_the_old_names_hold_after_the_migration() -> None:
    staff = Group.objects.create(name="pool-staff")
    POOL_MIGRATION.backwards(apps, EDITOR)  # the database as the old code left it
    ACCESS_MIGRATION.backwards(apps, EDITOR)
    staff.permissions.add(*Permission.objects.filter(codename__in=["view_fleet", "change_fleetaccess"]))
    assert Permission.objects.get(codename="view_fleet").name == "Can view fleet"

    POOL_MIGRATION.forwards(apps, EDITOR)
    ACCESS_MIGRATION.forwards(apps, EDITOR)
    assert codenames(staff) == ["change_poolgroupaccess", "view_pool"]
    assert Permission.objects.get(codename="view_pool").name == "Can view pool"
    assert not ContentType.objects.filter(model__in=["fleet", "fleetaccess"]).exists()
    assert ContentType.objects.get_for_model(Pool).model == "pool"


def test_an_existing_new_content_type_is_left_alone() -> None:
    old = ContentType.objects.create(app_label="fleets", model="fleet")
    POOL_MIGRATION.forwards(apps, EDITOR)
    old.refresh_from_db()
    assert old.model == "fleet"  # Django's own rename does the same: no clash with the row post_migrate made
    assert ContentType.objects.get(app_label="fleets", model="pool") != old

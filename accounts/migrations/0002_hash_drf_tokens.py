"""Keys of DRF's authtoken (stored in clear, one per user) become ApiTokens stored as digests, and
keep working; then the clear keys are deleted with their table. A new database has no such table."""

import hashlib
from datetime import UTC

from django.db import migrations

OLD_TABLE = "authtoken_token"


def hash_drf_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    User = apps.get_model("auth", "User")
    table = connection.ops.quote_name(OLD_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {connection.ops.quote_name('key')}, user_id, created FROM {table}")  # noqa: S608
        rows = cursor.fetchall()
    passwords = dict(User.objects.filter(pk__in=[row[1] for row in rows]).values_list("pk", "password"))
    for key, user_id, created in rows:
        if user_id not in passwords:
            continue
        # The same digest and password stamp as accounts.tokens (frozen here, as migrations are).
        token = ApiToken.objects.create(
            user_id=user_id, prefix=key[:8], digest=hashlib.sha256(key.encode()).hexdigest(),
            password_stamp=hashlib.sha256(f"hipjudge-api-token:{passwords[user_id]}".encode()).hexdigest())
        if created.tzinfo is None:  # SQLite hands raw rows back naive; the column holds UTC
            created = created.replace(tzinfo=UTC)
        ApiToken.objects.filter(pk=token.pk).update(created_at=created)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {table}")
        # rest_framework.authtoken is no longer installed: forget its migrations with its table.
        cursor.execute("DELETE FROM django_migrations WHERE app = %s", ["authtoken"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(hash_drf_tokens, migrations.RunPython.noop)]

"""A model renamed without moving its table keeps its content type and permissions: the helper
migrations run after a state-only RenameModel.

Django renames a content type only after a top-level RenameModel, and never renames permission
codenames, so a staff group granted `fleets.change_fleet` would lose the pool admin once the model is
called Pool. These renames keep every grant, admin log entry and generic relation pointing at the
same rows. A fresh database has neither yet (post_migrate makes them later, with the new names).
"""

from __future__ import annotations

from typing import Any

ACTIONS = ("add", "change", "delete", "view")


def content_type_rename(apps: Any, schema_editor: Any, *, app_label: str, old: str, new: str,
                        old_verbose: str, new_verbose: str) -> None:
    """Content type `app_label.old` -> `app_label.new`, with its default permissions' codenames and
    names; nothing when the old one is absent or the new one already exists (as Django's own rename)."""
    content_types = apps.get_model("contenttypes", "ContentType").objects.db_manager(schema_editor.connection.alias)
    permissions = apps.get_model("auth", "Permission").objects.db_manager(schema_editor.connection.alias)
    found = content_types.filter(app_label=app_label, model=old).first()
    if found is None or content_types.filter(app_label=app_label, model=new).exists():
        return
    found.model = new
    found.save(update_fields=["model"])
    for action in ACTIONS:
        permissions.filter(content_type=found, codename=f"{action}_{old}").update(codename=f"{action}_{new}")
        permissions.filter(content_type=found, name=f"Can {action} {old_verbose}").update(
            name=f"Can {action} {new_verbose}")
    content_types.clear_cache()

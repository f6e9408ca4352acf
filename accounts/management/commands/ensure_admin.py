"""Create the admin user once; print its password that one time (or take HIPJUDGE_ADMIN_PASSWORD)."""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create a staff superuser if missing (password from HIPJUDGE_ADMIN_PASSWORD or generated)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default=os.environ.get("HIPJUDGE_ADMIN_USER", "admin"))

    def handle(self, *args: Any, **opts: Any) -> None:
        User = get_user_model()
        username = opts["username"]
        password = os.environ.get("HIPJUDGE_ADMIN_PASSWORD", "")
        user = User.objects.filter(username=username).first()
        if user is not None:
            if password:
                user.set_password(password)
                user.save(update_fields=["password"])
                self.stdout.write(f"admin user {username!r}: password set from HIPJUDGE_ADMIN_PASSWORD")
            else:
                self.stdout.write(f"admin user {username!r} exists (its password was printed when it was created)")
            return
        generated = not password
        password = password or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, email="", password=password)
        if generated:
            self.stdout.write(f"created admin user {username!r} with password: {password}")
            self.stdout.write("  (shown only now; set HIPJUDGE_ADMIN_PASSWORD to choose it)")
        else:
            self.stdout.write(f"created admin user {username!r} (password from HIPJUDGE_ADMIN_PASSWORD)")

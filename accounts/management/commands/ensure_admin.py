"""Create the admin user once; print its password that one time (or take HIPJUDGE_ADMIN_PASSWORD).
HIPJUDGE_ADMIN_EMAIL gives it an email address: the budget alerts go to staff users that have one."""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email


class Command(BaseCommand):
    help = "Create a staff superuser if missing (password from HIPJUDGE_ADMIN_PASSWORD or generated)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default=os.environ.get("HIPJUDGE_ADMIN_USER", "admin"))

    def handle(self, *args: Any, **opts: Any) -> None:
        User = get_user_model()
        username = opts["username"]
        password = os.environ.get("HIPJUDGE_ADMIN_PASSWORD", "")
        email = os.environ.get("HIPJUDGE_ADMIN_EMAIL", "").strip()
        if email:
            try:
                validate_email(email)
            except ValidationError:
                raise CommandError(f"HIPJUDGE_ADMIN_EMAIL is not an email address: {email!r}") from None
        user = User.objects.filter(username=username).first()
        if user is not None:
            if password:
                user.set_password(password)
                user.save(update_fields=["password"])
                self.stdout.write(f"admin user {username!r}: password set from HIPJUDGE_ADMIN_PASSWORD")
            else:
                self.stdout.write(f"admin user {username!r} exists (its password was printed when it was created)")
            if email and user.email != email:
                user.email = email
                user.save(update_fields=["email"])
                self.stdout.write(f"admin user {username!r}: email set from HIPJUDGE_ADMIN_EMAIL")
        else:
            generated = not password
            password = password or secrets.token_urlsafe(12)
            user = User.objects.create_superuser(username=username, email=email, password=password)
            if generated:
                self.stdout.write(f"created admin user {username!r} with password: {password}")
                self.stdout.write("  (shown only now; set HIPJUDGE_ADMIN_PASSWORD to choose it)")
            else:
                self.stdout.write(f"created admin user {username!r} (password from HIPJUDGE_ADMIN_PASSWORD)")
        # Whom billing.alerts emails (accounts imports no other app: the same filter, said here).
        if not User.objects.filter(is_staff=True, is_active=True).exclude(email="").exists():
            self.stdout.write("  no staff user has an email address: budget alerts would reach nobody "
                              "(set HIPJUDGE_ADMIN_EMAIL)")

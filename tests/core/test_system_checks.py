"""Django's system checks pass, warnings included. The worker clusters the integration tests start skip
them (tests/integration/conftest.py: they would load the whole URLconf at each start), so this is
where the suite runs them."""

from __future__ import annotations

from django.core.management import call_command


def test_the_system_checks_find_nothing(db: None) -> None:
    call_command("check", fail_level="WARNING")

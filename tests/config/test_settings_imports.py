"""Settings import no app: reading them must not load app code (the agent's judge loads numpy), and an
app's module imported by settings would be loaded before Django's app registry is ready."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

APP_PACKAGES = ("agent", "submissions", "leaderboard", "ops", "fleets", "billing", "limits", "web", "accounts", "core",
                "cli")


def test_importing_the_settings_loads_no_app_package() -> None:
    code = ("import sys, config.settings; "
            f"print(' '.join(sorted({{name.split('.')[0] for name in sys.modules}} & {set(APP_PACKAGES)!r})))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                            env={"PATH": "/usr/bin:/bin", "HIPJUDGE_VAR_DIR": str(ROOT / "var")}, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == []

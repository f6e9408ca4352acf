"""Where `hipjudge login` keeps the server and token: $HIPJUDGE_CONFIG, else
$XDG_CONFIG_HOME/hipjudge/config.json (~/.config by default), readable by its owner only."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def config_path() -> Path:
    explicit = os.environ.get("HIPJUDGE_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "hipjudge" / "config.json"


def load_config() -> dict[str, Any]:
    try:
        data = json.loads(config_path().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_config(data: dict[str, Any]) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the token is a password
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
    return path

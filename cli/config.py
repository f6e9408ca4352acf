"""Where `hipjudge login` keeps the server and token: $HIPJUDGE_CONFIG, else
$XDG_CONFIG_HOME/hipjudge/config.json (~/.config by default), readable by its owner only."""

from __future__ import annotations

import json
import os
from typing import Any

# os.path, not pathlib: every command reads the config, and pathlib's import is a few ms of each
# CLI start (bench/turnaround.py times it).


def config_path() -> str:
    explicit = os.environ.get("HIPJUDGE_CONFIG")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "hipjudge", "config.json")


def load_config() -> dict[str, Any]:
    try:
        with open(config_path(), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_config(data: dict[str, Any]) -> str:
    path = config_path()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the token is a password
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
    return path

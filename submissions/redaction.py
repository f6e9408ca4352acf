"""The ranked pass's seed never leaves the server: whatever the agent reports is stored and shown
only after every trace of it is replaced (a buggy or compromised agent that echoes it must not hand
users the inputs of their ranked pass)."""

from __future__ import annotations

from typing import Any

REDACTED = "[redacted]"


def redact(value: Any, secret: int | None) -> Any:
    """`value` (JSON data) with the secret, as a number or inside any text, replaced."""
    if secret is None:
        return value
    text = str(secret)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return REDACTED if value == secret else value
    if isinstance(value, float):
        return REDACTED if value == float(secret) else value
    if isinstance(value, str):
        return value.replace(text, REDACTED)
    if isinstance(value, dict):
        return {redact(key, secret): redact(item, secret) for key, item in value.items()}
    if isinstance(value, list):
        return [redact(item, secret) for item in value]
    return value

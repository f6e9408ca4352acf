"""Log lines: readable text by default, one JSON object per line with HIPJUDGE_LOG_FORMAT=json.

State changes (a submission's status, a VM's state, pool and budget events) are logged through
`log_event`, which carries the ids as structured fields: `event` names the kind of change and
`submission`, `vm`, `pool` (the Pool's id) say what changed. Only those named fields reach a
formatter: arbitrary `extra=` objects (Django attaches the request to its error lines) are never
serialized, so a source text or a token cannot ride along. Callers pass ids, never payloads.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

from django.db import transaction

# The structured fields a line may carry, in the order the text format prints them.
FIELDS = ("event", "submission", "vm", "pool", "job", "user", "status", "old", "new", "attempt", "grant",
          "threshold", "count")
_ATTR = "hipjudge_fields"


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    return getattr(record, _ATTR, None) or {}


class TextFormatter(logging.Formatter):
    """`2026-11-02 10:00:00,123 INFO fleets.services: VM ... [event=vm.state vm=... pool=...]`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = _fields(record)
        if not fields:
            return line
        pairs = " ".join(f"{key}={fields[key]}" for key in FIELDS if fields.get(key) not in (None, ""))
        head, newline, rest = line.partition("\n")  # keep a traceback below the fields
        return f"{head} [{pairs}]{newline}{rest}"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, message, the structured fields, exc."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in _fields(record).items():
            if value not in (None, ""):
                entry[key] = value if isinstance(value, int | float | bool) else str(value)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class WorkerChatter(logging.Filter):
    """django-q2 logs every task it enqueues, starts, finishes and creates from a schedule at INFO:
    most lines of a `make run`. On the django-q logger (config/settings.py) those lines become
    DEBUG, shown only when that logger is set to DEBUG (HIPJUDGE_Q_LOG_LEVEL). The cluster's own
    start, stop and failures stay as they are; a submission's changes are logged by our code, one
    line per status change (submissions.services.log_status)."""

    PER_TASK = re.compile(r"Enqueued \[|\S+ processing \S+ '|Processed '|\S+ created task \S+ from schedule|"
                          r"\S+ ready for work at |\S+ stopped doing work|recycled worker ")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or not self.PER_TASK.match(record.getMessage()):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def log_event(logger: logging.Logger, event: str, message: str, *args: Any, level: int = logging.INFO,
              **fields: Any) -> None:
    """Log one state change now, with its ids as structured fields."""
    unknown = set(fields) - set(FIELDS)
    if unknown:  # a programming error: only the fields above may reach the formatters
        raise ValueError(f"log_event: unknown field(s) {sorted(unknown)}")
    logger.log(level, message, *args, extra={_ATTR: {"event": event, **fields}})


def log_event_on_commit(logger: logging.Logger, event: str, message: str, *args: Any, level: int = logging.INFO,
                        **fields: Any) -> None:
    """The same, once the surrounding transaction commits (at once outside one): a change that is
    rolled back is never reported."""
    transaction.on_commit(lambda: log_event(logger, event, message, *args, level=level, **fields))

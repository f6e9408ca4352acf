"""The OpenAPI description of `GET /api/v1/submissions/{id}/events`, added to the API schema by
append_events_stream_path, a post-processing hook SPECTACULAR_SETTINGS names.

The stream is a plain async Django view, which drf-spectacular cannot read. Each item of the
text/event-stream is described as one Server-Sent Event (`event`, `id`, `data`). Its `data` is a
JSON document, which OpenAPI 3.0 cannot describe inside a string: the description says what it holds.
"""

from __future__ import annotations

from typing import Any

MAX_SEQ = 2**31 - 1  # the event counter's column range

def _error(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


EVENTS_STREAM_OPERATION: dict[str, Any] = {
    "operationId": "submissions_events_stream",
    "summary": "Live events of a submission (Server-Sent Events)",
    "description": "A text/event-stream of the submission's events in order, each with `id: <seq>`, "
                   "`event: <type>` and JSON `data` {seq, type, payload, at}. Reconnect with "
                   "`Last-Event-ID` (or `?after=<seq>`) to resume. An `event: heartbeat` (data {t}) is sent "
                   "when nothing happened for a while; the stream ends after the final RESULT, or with an "
                   "`event: error` (data {message}) once its token is revoked or its session is over (checked "
                   "every 30 s at most).",
    "tags": ["submissions"],
    "parameters": [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}},
        {"name": "after", "in": "query", "required": False,
         "schema": {"type": "integer", "minimum": 0, "maximum": MAX_SEQ}},
        {"name": "Last-Event-ID", "in": "header", "required": False,
         "schema": {"type": "integer", "minimum": 0, "maximum": MAX_SEQ}},
    ],
    "responses": {
        "200": {"description": "The event stream; each item is one Server-Sent Event.", "content": {
            "text/event-stream": {"schema": {
                "type": "object",
                "required": ["event", "data"],
                "properties": {
                    "event": {"type": "string"},
                    "id": {"type": "string", "pattern": "^[0-9]+$"},
                    "retry": {"type": "integer"},
                    "data": {"type": "string", "description": "JSON: {seq, type, payload, at} for an event of the "
                                                              "submission, {t} for a heartbeat, {message} for an "
                                                              "error that ends the stream."},
                },
            }}}},
        "400": _error("`after` / `Last-Event-ID` is not an integer from 0 to 2147483647."),
        "401": _error("No valid credentials (a token or a session)."),
        "404": _error("No such submission, or not yours."),
        "429": _error("You hold the most live event streams one user may on this server (Retry-After)."),
    },
    "security": [{"tokenAuth": []}, {"cookieAuth": []}],
}


def append_events_stream_path(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: the generated schema, with the events stream added."""
    result["paths"]["/api/v1/submissions/{id}/events"] = {"get": EVENTS_STREAM_OPERATION}
    return result

"""OpenAPI descriptions of the operations endpoints (answered by ops.middleware, outside DRF), merged
into the API schema by append_ops_paths, a post-processing hook SPECTACULAR_SETTINGS names."""

from typing import Any

_JSON = "application/json"
_CHECK = {"type": "object", "properties": {"ok": {"type": "boolean"}, "error": {"type": "string"}},
          "required": ["ok"], "additionalProperties": True}
_READINESS = {"type": "object", "required": ["status", "failing", "checks"], "properties": {
    "status": {"type": "string", "enum": ["ok", "unavailable"]},
    "failing": {"type": "array", "items": {"type": "string",
                                           "enum": ["database", "broker", "worker_heartbeat", "dstack"]}},
    "checks": {"type": "object", "additionalProperties": _CHECK},
}}
_ERROR = {"$ref": "#/components/schemas/Error"}  # the API's one error shape (core.schema)


def _op(operation_id: str, summary: str, description: str, responses: dict[str, Any]) -> dict[str, Any]:
    return {"get": {"operationId": operation_id, "summary": summary, "description": description, "tags": ["ops"],
                    "security": [{}], "responses": responses}}


OPS_PATHS: dict[str, Any] = {
    "/healthz": _op("ops_healthz", "Liveness", "This process answers. Touches no database; no authentication.",
                    {"200": {"description": "alive", "content": {_JSON: {"schema": {
                        "type": "object", "properties": {"status": {"type": "string", "enum": ["ok"]}}}}}}}),
    "/readyz": _op("ops_readyz", "Readiness",
                   "The database and the broker answer, a worker cluster reported within "
                   "HIPJUDGE_HEARTBEAT_MAX_AGE, and, when an enabled pool uses dstack, the dstack server "
                   "answers (cached). No authentication; 503 names the failing parts.",
                   {"200": {"description": "ready", "content": {_JSON: {"schema": _READINESS}}},
                    "503": {"description": "not ready", "content": {_JSON: {"schema": _READINESS}}}}),
    "/metrics": _op("ops_metrics", "Prometheus metrics",
                    "The platform's series in the Prometheus text format (OpenMetrics on request). Readable "
                    "from HIPJUDGE_METRICS_ALLOW (loopback by default) or with `Authorization: Bearer "
                    "<HIPJUDGE_METRICS_TOKEN>`.",
                    {"200": {"description": "metrics", "content": {"text/plain": {"schema": {"type": "string"}}}},
                     "403": {"description": "not an allowed address, no valid token",
                             "content": {_JSON: {"schema": _ERROR}}}}),
}


def append_ops_paths(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: the generated schema, with OPS_PATHS added."""
    result["paths"].update(OPS_PATHS)
    return result

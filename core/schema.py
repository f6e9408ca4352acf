"""The OpenAPI schema says which errors each operation can answer with, each in the one error shape.

drf-spectacular documents only the success of an operation. `AutoSchema` adds the error statuses
that follow from how the view is built (a body or query parameters: 400, 413, 415; a login: 401;
a permission beyond login or a session's CSRF check: 403; an id in the path: 404; throttles: 429);
a view adds the statuses of its own business rules with `error_responses(402, 409, ...)`.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated

ERROR_DESCRIPTIONS = {
    400: "The request is invalid: `message` says why, `extra.fields` names the fields.",
    401: "No valid credentials (a token or a session; for a new token: a wrong username or password).",
    402: "Refused, nothing stored: the GPU credit is used up, or your monthly spend cap on paid pools is reached.",
    403: "Not allowed: a permission is missing, a session request lacks its CSRF token, your account is "
         "suspended, or the paid pool is not open to you (nothing stored).",
    404: "No such object, or not yours.",
    409: "The object is not in a state that allows this.",
    413: "The request body is larger than the limit.",
    415: "Unsupported Content-Type.",
    429: "Refused, nothing stored: a submission quota or your daily GPU-seconds cap (with Retry-After when it "
         "resets at a known time), or too many attempts (Retry-After).",
}


class ErrorSerializer(serializers.Serializer):
    """The one error shape of the whole API (core.exceptions)."""

    message = serializers.CharField(help_text="A sentence for people.")
    extra = serializers.DictField(help_text="Details for programs: `fields` for invalid input; for a refusal, "
                                            "status REJECTED, the limit, its figures and when it resets; "
                                            "retry_after_s when throttled.")

    class Meta:
        ref_name = "Error"


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """`extend_schema(responses={200: ..., **error_responses(409)})` for a view's own error statuses."""
    return {status: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[status]) for status in statuses}


# DRF's text fields refuse NUL characters with a 400 (ProhibitNullCharactersValidator); the schema says
# so, or a client (or Schemathesis) would take a string with NUL for a valid one.
NO_NUL = "^[^\\u0000]*$"


class AutoSchema(SpectacularAutoSchema):
    _direction = "response"

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        outer, self._direction = self._direction, direction
        try:
            return super()._map_basic_serializer(serializer, direction)
        finally:
            self._direction = outer

    def _insert_field_validators(self, field: Any, schema: dict[str, Any]) -> None:
        super()._insert_field_validators(field, schema)
        # Requests only (what the server refuses), and after drf-spectacular decided how a blank value
        # is described: the pattern allows "" anyway.
        target = schema["oneOf"][0] if "oneOf" in schema else schema
        if (self._direction == "request" and isinstance(field, serializers.CharField)
                and not isinstance(field, serializers.ChoiceField) and target.get("type") == "string"
                and not {"pattern", "enum", "format"} & set(target)):
            target["pattern"] = NO_NUL

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        for status, response in error_responses(*self._implied_error_statuses()).items():
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(response, str(status), direction=direction)
        return dict(sorted(responses.items()))

    def _implied_error_statuses(self) -> list[int]:
        statuses = []
        has_body = self.method in ("POST", "PUT", "PATCH") and self.get_request_serializer() is not None
        if has_body or self.get_override_parameters():
            statuses.append(400)
        permissions = self.view.get_permissions()
        public = any(isinstance(p, AllowAny) for p in permissions)
        if not public:
            statuses.append(401)
        session = any(isinstance(a, SessionAuthentication) for a in self.view.get_authenticators())
        if (not public and any(not isinstance(p, IsAuthenticated) for p in permissions)) or (
                session and self.method not in ("GET", "HEAD", "OPTIONS")):
            statuses.append(403)
        if "{" in self.path or (self.method == "GET" and self._get_paginator() and self._is_list_view()):
            statuses.append(404)  # no such object, or a page past the end
        if has_body:
            statuses += [413, 415]
        if self.view.get_throttles():
            statuses.append(429)
        return statuses

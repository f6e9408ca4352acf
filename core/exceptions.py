"""One error shape for the whole API: `{"message": "<a sentence>", "extra": {...}}`.

Services raise ApplicationError (or Django's ValidationError / PermissionDenied / Http404); views
never build error responses themselves. Anything a client can cause maps to a 4xx, never a 500.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class ApplicationError(Exception):
    """A business rule refused the request. `status_code` picks the HTTP status (400 by default)."""

    status_code: int = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, extra: dict[str, Any] | None = None, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.retry_after = retry_after  # seconds, sent as Retry-After when the refusal ends at a known time


class AuthenticationFailed(ApplicationError):
    """Credentials were given and are wrong (a login with a wrong password)."""

    status_code = status.HTTP_401_UNAUTHORIZED


class PaymentRequired(ApplicationError):
    """Out of credit, or over the user's monthly spend cap: HTTP 402 with the reason."""

    status_code = status.HTTP_402_PAYMENT_REQUIRED


class AccessDenied(ApplicationError):
    status_code = status.HTTP_403_FORBIDDEN


class NotFoundError(ApplicationError):
    status_code = status.HTTP_404_NOT_FOUND


class ConflictError(ApplicationError):
    status_code = status.HTTP_409_CONFLICT


class QuotaExceeded(ApplicationError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            inner = _first_message(value)
            return inner if key in ("non_field_errors", "detail") else f"{key}: {inner}"
        return "Invalid input."
    if isinstance(detail, list):
        return _first_message(detail[0]) if detail else "Invalid input."
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return Response({"message": exc.message, "extra": exc.extra}, status=exc.status_code, headers=headers)
    if isinstance(exc, RequestDataTooBig):  # from request.body, which DRF's parsers read
        return Response({"message": f"The request body is larger than the limit of "
                                    f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes.", "extra": {}},
                        status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, DjangoValidationError):
        detail: Any = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail)
    elif isinstance(exc, Http404 | ObjectDoesNotExist):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: let Django log it and answer 500
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"message": _first_message(exc.detail), "extra": {"fields": exc.detail}}
    elif isinstance(exc, exceptions.Throttled):  # DRF's handler already set Retry-After
        response.data = {"message": _first_message(exc.detail), "extra": {"retry_after_s": getattr(exc, "wait", None)}}
    else:
        detail = getattr(exc, "detail", None)
        response.data = {"message": _first_message(detail) if detail is not None else str(exc), "extra": {}}
    return response

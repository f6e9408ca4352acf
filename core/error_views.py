"""Error pages: JSON under /api/ (the one error shape), HTML elsewhere."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.csrf import csrf_failure as django_csrf_failure


def _answer(request: HttpRequest, status: int, message: str) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"message": message, "extra": {}}, status=status)
    return render(request, "error.html", {"status": status, "message": message}, status=status)


def bad_request(request: HttpRequest, exception: Any = None) -> HttpResponse:
    return _answer(request, 400, "Bad request.")


def permission_denied(request: HttpRequest, exception: Any = None) -> HttpResponse:
    return _answer(request, 403, "You are not allowed to see this.")


def page_not_found(request: HttpRequest, exception: Any = None) -> HttpResponse:
    return _answer(request, 404, "Not found.")


def server_error(request: HttpRequest) -> HttpResponse:
    return _answer(request, 500, "Something broke on our side; it has been logged.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a session request without its CSRF token. The API answers in its error shape;
    the site keeps Django's page, which explains the cookie to a person."""
    if request.path.startswith("/api/"):
        return JsonResponse({"message": f"The CSRF check failed ({reason}): a request with a session needs the "
                                        "X-CSRFToken header; a client with a token is never asked for one.",
                             "extra": {}}, status=403)
    return django_csrf_failure(request, reason)

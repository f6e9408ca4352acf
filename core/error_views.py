"""Error pages: JSON under /api/ (the one error shape), HTML elsewhere."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


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

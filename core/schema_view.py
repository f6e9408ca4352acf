"""GET /api/v1/schema: the OpenAPI schema, generated once per process, under a lock.

drf-spectacular's generator is not thread-safe: its extensions import their target classes on
first use and, while one thread does, another sees `None` and raises. uvicorn runs sync views in
threads, so the first requests after a start answered 500 when they came together (11 of 12
concurrent ones in a test; once in the fault test, whose restarted web process was polled while
it was slow to answer). The schema does not change while the process runs, so it is built once.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

_lock = threading.Lock()
_schema: dict[str, Any] | None = None


@receiver(setting_changed)
def _forget_schema(**_: Any) -> None:
    """A test that changes a setting (a throttle, an app) gets a schema built under it."""
    global _schema
    with _lock:
        _schema = None


class JsonErrors:
    """An error of a view whose answers are not JSON (the schema in YAML, the docs page in HTML) is
    still JSON in the API's error shape, as every other API error."""

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]


class DocsView(JsonErrors, SpectacularSwaggerView):
    # A page to read: OPTIONS would render DRF's metadata through the page's template renderer, which
    # has no template for it (a 500).
    http_method_names = ["get", "head"]


class SchemaView(JsonErrors, SpectacularAPIView):
    """One schema whatever the query says. drf-spectacular takes `?version=` as given when no
    versions are configured, and put it in the Content-Disposition header: a newline there
    answered 500, and each value would have been a schema to build and keep. The API has one
    version, in its path."""

    # The API's description is public: it holds no data, and clients read it before logging in.
    permission_classes = [AllowAny]

    def _get_schema_response(self, request: Request) -> Response:
        global _schema
        with _lock:
            if _schema is None:
                generator = self.generator_class(urlconf=self.urlconf, patterns=self.patterns)
                _schema = generator.get_schema(request=request, public=self.serve_public)
            schema = _schema
        filename = self._get_filename(request, None)
        return Response(data=schema, headers={"Content-Disposition": f'inline; filename="{filename}"'})

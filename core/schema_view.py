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
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

_lock = threading.Lock()
_schemas: dict[tuple[Any, ...], dict[str, Any]] = {}


@receiver(setting_changed)
def _forget_schemas(**_: Any) -> None:
    """A test that changes a setting (a throttle, an app) gets a schema built under it."""
    with _lock:
        _schemas.clear()


class SchemaView(SpectacularAPIView):
    # The API's description is public: it holds no data, and clients read it before logging in.
    permission_classes = [AllowAny]

    def _get_schema_response(self, request: Request) -> Response:
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (version, self.serve_public, request.GET.get("lang"))
        with _lock:
            schema = _schemas.get(key)
            if schema is None:
                generator = self.generator_class(urlconf=self.urlconf, api_version=version, patterns=self.patterns)
                schema = _schemas[key] = generator.get_schema(request=request, public=self.serve_public)
        filename = self._get_filename(request, version)
        return Response(data=schema, headers={"Content-Disposition": f'inline; filename="{filename}"'})

"""ASGI entry point (uvicorn config.asgi:application): needed for the streaming SSE endpoint.
Django's handler with one thread hop per request (core.asgi_handler)."""

import logging
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application

from core.asgi_handler import OneHopASGIHandler  # noqa: E402  (after Django is set up)
from core.body_limit import BodyLimit  # noqa: E402

django_application = OneHopASGIHandler()

application = BodyLimit(django_application)

# uvicorn gave its loggers handlers of their own before it imported us: hand their lines to ours,
# so that HIPJUDGE_LOG_FORMAT=json makes every line of a web process JSON. The access logger is left
# alone when it has no handler: that is how uvicorn's --no-access-log switches it off.
for _name in ("uvicorn", "uvicorn.access"):
    _logger = logging.getLogger(_name)
    if _logger.handlers:
        _logger.handlers.clear()
        _logger.propagate = True

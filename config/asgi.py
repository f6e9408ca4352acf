"""ASGI entry point (uvicorn config.asgi:application): needed for the streaming SSE endpoint."""

import logging
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()

from core.body_limit import BodyLimit  # noqa: E402  (after Django is set up)

application = BodyLimit(django_application)

# uvicorn gave its loggers handlers of their own before it imported us: hand their lines to ours,
# so that HIPJUDGE_LOG_FORMAT=json makes every line of a web process JSON. The access logger is left
# alone when it has no handler: that is how uvicorn's --no-access-log switches it off.
for _name in ("uvicorn", "uvicorn.access"):
    _logger = logging.getLogger(_name)
    if _logger.handlers:
        _logger.handlers.clear()
        _logger.propagate = True

from django.apps import AppConfig
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# HIPJUDGE_MAX_SOURCE_BYTES's default, the agents' own limit (a test keeps it equal to
# agent.protocol.MAX_SOURCE_BYTES): at or below it the agent need not be read.
DEFAULT_SOURCE_LIMIT = 64 * 1024


def refuse_a_source_limit_above_the_agents() -> None:
    """Accepted by the API, a source larger than the agents take would end every job in ERROR."""
    limit = settings.HIPJUDGE_MAX_SOURCE_BYTES
    if limit <= DEFAULT_SOURCE_LIMIT:
        return
    from agent.protocol import MAX_SOURCE_BYTES

    if limit > MAX_SOURCE_BYTES:
        raise ImproperlyConfigured(
            f"HIPJUDGE_MAX_SOURCE_BYTES={limit}: the agents refuse sources above {MAX_SOURCE_BYTES} bytes "
            "(agent.protocol.MAX_SOURCE_BYTES); set it to at most that.")


class SubmissionsConfig(AppConfig):
    name = "submissions"

    def ready(self) -> None:
        refuse_a_source_limit_above_the_agents()
        from submissions import receivers  # noqa: F401  (fleets', billing's and limits' signals; the lookup cache)

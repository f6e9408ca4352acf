from django.apps import AppConfig


class CoreConfig(AppConfig):
    """Helpers every app uses (queue, errors, logs, request user, units), the schedules command,
    and what processes share about the platform itself (worker heartbeats, event counters)."""

    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.conf import settings
        from django_q.signals import post_spawn

        from core.db_pool import (
            pool_checks_only_long_idle_connections,
            pool_retries_every_second,
            pool_waits_while_busy,
        )
        from core.heartbeat import on_worker_spawned

        post_spawn.connect(on_worker_spawned, dispatch_uid="core.heartbeat.on_worker_spawned")
        pool_retries_every_second()
        pool_waits_while_busy(lambda: settings.HIPJUDGE_DB_POOL_BUSY_WAIT)
        pool_checks_only_long_idle_connections()

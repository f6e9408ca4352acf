from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Operations: liveness and readiness for load balancers, Prometheus metrics. Reads every other
    app; nothing imports it."""

    name = "ops"
    verbose_name = "Operations"

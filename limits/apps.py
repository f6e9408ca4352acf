from django.apps import AppConfig


class LimitsConfig(AppConfig):
    """Who may spend what: access to paid pools, spend caps, suspensions, and request throttles."""

    name = "limits"
    verbose_name = "Limits"

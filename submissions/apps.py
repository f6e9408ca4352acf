from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "submissions"

    def ready(self) -> None:
        from submissions import receivers  # noqa: F401  (fleets' and billing's signals; the lookup cache)

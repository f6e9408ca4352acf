from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "submissions"

    def ready(self) -> None:
        from submissions import receivers  # noqa: F401  (fleets' signals; edits that empty the lookup cache)

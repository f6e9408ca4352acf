from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        from leaderboard import receivers  # noqa: F401  (submissions' judging_closed, judgings_released)

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Users' API tokens and the admin user `make run` creates."""

    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts import receivers  # noqa: F401  (connects the signal receivers)

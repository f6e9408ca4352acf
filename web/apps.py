from django.apps import AppConfig


class WebConfig(AppConfig):
    """The browser-facing pages: problems, editor, live submission pages, history, leaderboards."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "web"
    verbose_name = "Web pages"

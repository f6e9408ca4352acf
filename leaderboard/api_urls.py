"""The leaderboard's REST endpoints, included by config.api_urls under /api/v1/."""

from django.urls import path

from leaderboard.apis import LeaderboardApi

urlpatterns = [
    path("problems/<slug:slug>/leaderboard", LeaderboardApi.as_view(), name="api-leaderboard"),
]

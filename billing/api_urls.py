"""Billing endpoints under /api/v1/ (included from config.api_urls)."""

from django.urls import path

from billing.apis import MetricsApi, UsageApi

urlpatterns = [
    path("metrics", MetricsApi.as_view(), name="api-metrics"),
    path("usage", UsageApi.as_view(), name="api-usage"),
]

"""/api/v1/: every REST endpoint, the SSE stream, and the OpenAPI schema + docs."""

from django.urls import include, path
from rest_framework.permissions import AllowAny

from accounts.apis import TokenCreateApi
from core.schema_view import DocsView, SchemaView
from limits.apis import PoolListApi
from submissions import converters  # noqa: F401 - registers the `subid` converter
from submissions.sse import events_stream
from web.api.problems import ProblemDetailApi, ProblemListApi
from web.api.submissions import (
    MeApi,
    SubmissionAmdgcnApi,
    SubmissionCancelApi,
    SubmissionDetailApi,
    SubmissionListCreateApi,
)

urlpatterns = [
    path("submissions", SubmissionListCreateApi.as_view(), name="api-submissions"),
    # Its whole id or the start of it (the pages show 8 digits), among the caller's own.
    path("submissions/<subid:submission_id>", SubmissionDetailApi.as_view(), name="api-submission"),
    path("submissions/<uuid:submission_id>/cancel", SubmissionCancelApi.as_view(), name="api-submission-cancel"),
    path("submissions/<uuid:submission_id>/amdgcn", SubmissionAmdgcnApi.as_view(), name="api-submission-amdgcn"),
    path("submissions/<uuid:submission_id>/events", events_stream, name="api-submission-events"),
    path("problems", ProblemListApi.as_view(), name="api-problems"),
    path("problems/<slug:slug>", ProblemDetailApi.as_view(), name="api-problem"),
    path("", include("leaderboard.api_urls")),  # a problem's leaderboard
    path("pools", PoolListApi.as_view(), name="api-pools"),
    path("auth/token", TokenCreateApi.as_view(), name="api-token"),
    path("me", MeApi.as_view(), name="api-me"),
    path("", include("billing.api_urls")),  # metrics (staff), usage
    path("schema", SchemaView.as_view(), name="api-schema"),  # public, like the docs
    path("docs", DocsView.as_view(url_name="api-schema", permission_classes=[AllowAny]),
         name="api-docs"),
]

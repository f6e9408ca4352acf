"""REST API v1 for submissions and problems: one APIView per resource, thin, one service each."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from billing.selectors import submission_cost
from config.auth import request_user
from config.exceptions import ApplicationError, NotFoundError
from submissions.models import Submission
from submissions.results import submission_results
from submissions.selectors import (
    problem_get,
    problem_list,
    queue_position,
    queue_positions,
    submission_get,
    submission_list,
)
from submissions.services import submission_cancel, submission_create


class Pagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


class SubmissionOutput(serializers.Serializer):
    id = serializers.UUIDField()
    problem = serializers.CharField(source="problem.slug")
    problem_version = serializers.CharField(source="problem_version.content_hash")
    pool = serializers.CharField(source="fleet.name")
    user = serializers.CharField(source="user.username")
    language = serializers.CharField()
    mode = serializers.CharField()
    status = serializers.CharField()
    status_reason = serializers.CharField()
    is_terminal = serializers.BooleanField()
    queue_position = serializers.SerializerMethodField()
    vm = serializers.UUIDField(source="vm_id", allow_null=True)
    vm_start = serializers.CharField()
    attempt = serializers.IntegerField()
    score_ms = serializers.FloatField(allow_null=True)
    summary = serializers.JSONField()
    last_seq = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    queued_at = serializers.DateTimeField(allow_null=True)
    dispatched_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)

    def get_queue_position(self, obj: Submission) -> int | None:
        positions = self.context.get("positions")
        if positions is not None:
            return positions.get(obj.pk)
        return queue_position(submission=obj)


class SubmissionDetailOutput(SubmissionOutput):
    # Named like DRF's Field.source attribute, hence the ignore.
    source = serializers.CharField()  # type: ignore[assignment]
    results = serializers.SerializerMethodField()
    cost_usd = serializers.SerializerMethodField(help_text="USD (a decimal string) of the VM time it used")

    def get_results(self, obj: Submission) -> dict[str, Any]:
        return submission_results(submission=obj)

    def get_cost_usd(self, obj: Submission) -> str:
        return str(submission_cost(submission=obj))


class SubmissionListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        problem = serializers.CharField(max_length=100)
        language = serializers.CharField(max_length=16, default="cpp")
        mode = serializers.CharField(max_length=16, default="benchmark")
        pool = serializers.CharField(max_length=63, required=False, allow_blank=True)
        # Either the text or an uploaded file; the size and encoding rules live in the service.
        source = serializers.CharField(  # type: ignore[assignment]
            required=False, allow_blank=True, trim_whitespace=False)
        source_file = serializers.FileField(required=False)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            upload = attrs.pop("source_file", None)
            if upload is not None:
                if attrs.get("source"):
                    raise serializers.ValidationError({"source": "send either source or source_file, not both"})
                raw = upload.read(settings.HIPJUDGE_MAX_SOURCE_BYTES + 1)
                if len(raw) > settings.HIPJUDGE_MAX_SOURCE_BYTES:
                    raise ApplicationError(
                        f"source: the file is larger than the limit of {settings.HIPJUDGE_MAX_SOURCE_BYTES} bytes.",
                        {"field": "source", "limit_bytes": settings.HIPJUDGE_MAX_SOURCE_BYTES})
                try:
                    attrs["source"] = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise ApplicationError("source: the file is not valid UTF-8.", {"field": "source"}) from None
            if "source" not in attrs:
                raise serializers.ValidationError({"source": "this field is required"})
            return attrs

    class FilterSerializer(serializers.Serializer):
        status = serializers.CharField(required=False)
        problem = serializers.CharField(required=False)
        language = serializers.CharField(required=False)
        mode = serializers.CharField(required=False)
        pool = serializers.CharField(required=False)
        all = serializers.BooleanField(required=False, default=False, help_text="staff: everyone's")

    @extend_schema(parameters=[FilterSerializer], responses=SubmissionOutput(many=True))
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        qs = submission_list(user=request_user(request), filters=filters.validated_data,
                             everyone=filters.validated_data["all"] and request_user(request).is_staff)
        paginator = Pagination()
        page = paginator.paginate_queryset(qs, request, view=self) or []
        context = {"positions": queue_positions(submissions=page)}
        return paginator.get_paginated_response(SubmissionOutput(page, many=True, context=context).data)

    @extend_schema(request=InputSerializer, responses={201: SubmissionOutput})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        submission = submission_create(
            user=request_user(request), problem=values["problem"], language=values["language"],
            source=values["source"], mode=values["mode"], pool=values.get("pool") or None)
        # The objects submission_create used are already loaded: no second fetch on the hot path.
        return Response(SubmissionOutput(submission).data, status=status.HTTP_201_CREATED)


class SubmissionDetailApi(APIView):
    @extend_schema(responses=SubmissionDetailOutput)
    def get(self, request: Request, submission_id: str) -> Response:
        submission = submission_get(user=request_user(request), submission_id=submission_id)
        if submission is None:
            raise NotFoundError("No such submission.")
        return Response(SubmissionDetailOutput(submission).data)


class SubmissionCancelApi(APIView):
    @extend_schema(request=None, responses=SubmissionOutput)
    def post(self, request: Request, submission_id: str) -> Response:
        if submission_get(user=request_user(request), submission_id=submission_id) is None:
            raise NotFoundError("No such submission.")
        cancelled = submission_cancel(user=request_user(request), submission_id=submission_id)
        return Response(SubmissionOutput(submission_get(user=request_user(request), submission_id=cancelled.pk)).data,
                        status=status.HTTP_202_ACCEPTED)


class ProblemOutput(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    difficulty = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    version = serializers.CharField(source="current_version.content_hash")


class ProblemDetailOutput(ProblemOutput):
    statement = serializers.CharField(source="current_version.statement")
    signature = serializers.CharField(source="current_version.signature")
    templates = serializers.DictField(source="current_version.templates", child=serializers.CharField())


class ProblemListApi(APIView):
    @extend_schema(responses=ProblemOutput(many=True))
    def get(self, request: Request) -> Response:
        return Response(ProblemOutput(problem_list().select_related("current_version"), many=True).data)


class ProblemDetailApi(APIView):
    @extend_schema(responses=ProblemDetailOutput)
    def get(self, request: Request, slug: str) -> Response:
        problem = problem_get(slug=slug)
        if problem is None:
            raise NotFoundError(f"No problem {slug!r}.")
        return Response(ProblemDetailOutput(problem).data)

"""REST API v1 for submissions and the caller's quota (/me): thin APIViews over the services and
selectors of submissions, with what the leaderboard shows of each submission (its selectors)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.http import HttpResponse, QueryDict
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiRequest, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import FormParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from billing.amounts import ZERO
from billing.selectors import submission_cost, submission_cost_parts, submission_costs
from core.auth import request_user
from core.exceptions import ApplicationError, NotFoundError
from core.fields import StrictBooleanField, StrictCharField
from core.parsers import LimitedJSONParser
from core.represent import represent
from core.schema import error_responses
from leaderboard.apis import RankedDetailFields, SpeedOfLightOutput
from leaderboard.entries import ENTRY, new_without_entry, with_entries
from leaderboard.moderation import submission_update
from leaderboard.selectors import confirmation_pending
from leaderboard.speed_of_light import submission_light
from limits.apis import LimitsOutput
from limits.selectors import user_limits
from submissions.models import Language, Mode, Submission
from submissions.results import amdgcn_listing, compile_report, submission_results
from submissions.selectors import (
    AmbiguousId,
    queue_position,
    queue_positions,
    submission_find,
    submission_get,
    submission_list,
    user_quota,
)
from submissions.services import source_from_upload, submission_cancel, submission_create


class Pagination(PageNumberPagination):
    """`page` from 1 (past the end: 404); `page_size` from 1 to 100 (else 400, not a silent default)."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        size = int(raw) if raw.isascii() and raw.isdigit() else 0
        if not 1 <= size <= self.max_page_size:
            raise serializers.ValidationError(
                {"page_size": f"must be an integer from 1 to {self.max_page_size}, not {raw!r}"})
        return size

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        bounds = {"page": {"minimum": 1}, "page_size": {"minimum": 1, "maximum": self.max_page_size}}
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters


class SubmissionOutput(serializers.Serializer):
    id = serializers.UUIDField()
    problem = serializers.CharField(source="problem.slug")
    problem_version = serializers.CharField(source="problem_version.content_hash")
    pool = serializers.CharField(source="pool.name")
    user = serializers.CharField(source="user.username")
    language = serializers.CharField()
    mode = serializers.CharField()
    emulated = serializers.BooleanField(
        help_text="Checked on the emulated device (the CPU), not on a GPU: no timing, never on a leaderboard.")
    status = serializers.CharField()
    status_reason = serializers.CharField()
    is_terminal = serializers.BooleanField()
    queue_position = serializers.SerializerMethodField()
    vm = serializers.UUIDField(source="vm_id", allow_null=True)
    vm_start = serializers.CharField()
    attempt = serializers.IntegerField()
    score_ms = serializers.FloatField(allow_null=True, help_text=(
        "The public benchmark's score (geometric mean of its cases' means); for a leaderboard submission it never "
        "ranks: ranked_score_ms does."))
    ranked_score_ms = serializers.FloatField(source="entry.ranked_score_ms", allow_null=True, help_text=(
        "The one number that ranks (mode leaderboard), as the leaderboard shows it: a record's once a second "
        "judging confirmed it (the slower of the two). Null until then, and for a submission not ranked."))
    ranked_pending = serializers.SerializerMethodField(help_text=(
        "A record waits for its confirming second judging, or that judging runs: ranked_score_ms is not settled "
        "yet (it keeps an earlier ranked result meanwhile, or null)."))
    summary = serializers.SerializerMethodField(help_text=(
        "What the agent reported of the current judging (output, figures), without its ranked pass: that is "
        "ranked_score_ms and, in the detail, ranked."))
    last_seq = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    queued_at = serializers.DateTimeField(allow_null=True)
    dispatched_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    cost_usd = serializers.SerializerMethodField(
        help_text="USD (a decimal string) its job cost you so far: the cold start of a VM started for it, its busy "
                  "time and the idle time after it, as your caps count them.")

    def get_ranked_pending(self, obj: Submission) -> bool:
        return confirmation_pending(submission=obj)

    @extend_schema_field(serializers.DictField())
    def get_summary(self, obj: Submission) -> dict[str, Any]:
        summary = obj.summary if isinstance(obj.summary, dict) else {}
        return {key: value for key, value in summary.items() if key != "ranked"}

    def get_queue_position(self, obj: Submission) -> int | None:
        positions = self.context.get("positions")
        if positions is not None:
            return positions.get(obj.pk)
        return queue_position(submission=obj)

    def get_cost_usd(self, obj: Submission) -> str:
        costs = self.context.get("costs")
        return str(costs.get(obj.pk, ZERO) if costs is not None else submission_cost(submission=obj))


class SubmissionDetailOutput(RankedDetailFields, SubmissionOutput):
    # Named like DRF's Field.source attribute, hence the ignore.
    source = serializers.CharField()  # type: ignore[assignment]
    results = serializers.SerializerMethodField(help_text=(
        "compile, tests, benchmarks, ranked: the latest attempt's events; each benchmark and ranked case with its "
        "speed_of_light."))
    speed_of_light = serializers.SerializerMethodField(
        help_text="score_ms against the geometric mean of the benchmark cases' floors on the pool's device (null: "
                  "no score, or emulated).")
    cost_parts = serializers.SerializerMethodField(
        help_text="cost_usd by phase: provisioning (a cold start for it), busy, idle (after it), draining.")
    compile_report = serializers.SerializerMethodField(help_text=(
        "What the compiled kernels use of the GPU, where the language's compiler says (triton): per target "
        "(gfx942, sm_90) and kernel its registers (vgprs, agprs, sgprs / registers), spills, LDS or shared bytes, "
        "occupancy_waves_per_simd and mfma_instructions / mma_instructions; null otherwise. The AMDGCN listing: "
        "GET .../amdgcn."))

    def _light(self, obj: Submission) -> Any:
        cache = self.context.setdefault("light", {})
        if obj.pk not in cache:
            cache[obj.pk] = submission_light(submission=obj)
        return cache[obj.pk]

    def _results(self, obj: Submission) -> dict[str, Any]:
        cache = self.context.setdefault("results", {})
        if obj.pk not in cache:
            cache[obj.pk] = submission_results(submission=obj)
        return cache[obj.pk]

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_compile_report(self, obj: Submission) -> dict[str, Any] | None:
        return compile_report(results=self._results(obj))

    def get_results(self, obj: Submission) -> dict[str, Any]:
        results = dict(self._results(obj))
        for group in ("benchmarks", "ranked"):
            results[group] = self._light(obj).cases(results[group], group)
        return results

    @extend_schema_field(SpeedOfLightOutput(allow_null=True))
    def get_speed_of_light(self, obj: Submission) -> dict[str, Any] | None:
        return self._light(obj).score(obj.score_ms, "benchmarks")

    def _parts(self, obj: Submission) -> dict[str, Decimal]:
        cache = self.context.setdefault("cost_parts", {})
        if obj.pk not in cache:
            cache[obj.pk] = submission_cost_parts(submission=obj)
        return cache[obj.pk]

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_cost_parts(self, obj: Submission) -> dict[str, str]:
        return {phase: str(cost) for phase, cost in self._parts(obj).items()}

    def get_cost_usd(self, obj: Submission) -> str:
        return str(sum(self._parts(obj).values(), ZERO))


# What selectors.id_prefix takes, as the schema says it: 4 to 32 hex digits, dashes anywhere.
ID_START = r"^(?:-*(?:[0-9a-fA-F]-*){4,32})?$"


def not_one_of(values: list[str]) -> str:
    return "'{input}' is not one of " + ", ".join(values) + "."


class SubmissionListCreateApi(APIView):
    pagination_class = Pagination  # also what the schema reads to document the paginated list

    class InputSerializer(serializers.Serializer):
        problem = StrictCharField(max_length=100, help_text="A problem's slug (GET /problems).")
        language = serializers.ChoiceField(choices=Language.values, default=Language.CPP,
                                           error_messages={"invalid_choice": not_one_of(Language.values)})
        mode = serializers.ChoiceField(choices=Mode.values, default=Mode.BENCHMARK,
                                       error_messages={"invalid_choice": not_one_of(Mode.values)})
        pool = StrictCharField(max_length=63, required=False, allow_blank=True,
                               help_text="A pool's name (GET /pools); empty or absent: the default pool.")
        source = StrictCharField(  # type: ignore[assignment]
            trim_whitespace=False, help_text="The kernel's source text (UTF-8, size limit in bytes).")

        class Meta:
            ref_name = "SubmissionCreate"

    class UploadSerializer(InputSerializer):
        """A multipart form may send the source as a file instead of text (not both)."""

        source = StrictCharField(  # type: ignore[assignment]
            required=False, allow_blank=True, trim_whitespace=False, help_text="Leave out when uploading a file.")
        source_file = serializers.FileField(help_text="The kernel's source file (UTF-8).")

        class Meta:
            ref_name = "SubmissionUpload"

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            upload = attrs.pop("source_file", None)
            if attrs.get("source"):
                raise serializers.ValidationError({"source": "send either source or source_file, not both"})
            attrs["source"] = source_from_upload(upload)
            return attrs

    class FilterSerializer(serializers.Serializer):
        # An empty value means "any", as the web page's filter form sends it.
        status = serializers.CharField(required=False, allow_blank=True,
                                       help_text="One status or several, comma-separated.")
        problem = serializers.CharField(required=False, allow_blank=True)
        language = serializers.ChoiceField(choices=Language.values, required=False, allow_blank=True,
                                           error_messages={"invalid_choice": not_one_of(Language.values)})
        mode = serializers.ChoiceField(choices=Mode.values, required=False, allow_blank=True,
                                       error_messages={"invalid_choice": not_one_of(Mode.values)})
        pool = serializers.CharField(required=False, allow_blank=True)
        id = serializers.RegexField(
            ID_START, required=False, allow_blank=True, max_length=36, trim_whitespace=False,
            help_text="The start of a submission's id (4 to 32 hex digits, dashes allowed), e.g. the 8 the pages show.",
            error_messages={"invalid": "must be the start of a submission id (4 to 32 hex digits, dashes allowed)"})
        all = serializers.BooleanField(required=False, default=False, help_text="staff: everyone's")

        class Meta:
            ref_name = "SubmissionFilter"

    @extend_schema(parameters=[FilterSerializer], responses=SubmissionOutput(many=True))
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        qs = submission_list(user=request_user(request), filters=filters.validated_data,
                             everyone=filters.validated_data["all"] and request_user(request).is_staff)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(with_entries(qs), request, view=self) or []
        context = {"positions": queue_positions(submissions=page),
                   "costs": submission_costs(submission_ids=[s.pk for s in page])}
        return paginator.get_paginated_response(SubmissionOutput(page, many=True, context=context).data)

    @extend_schema(
        request={"application/json": InputSerializer, "application/x-www-form-urlencoded": InputSerializer,
                 # The file part is text: say which (a client must not send any bytes it likes).
                 "multipart/form-data": OpenApiRequest(UploadSerializer, encoding={
                     "source_file": {"contentType": "text/plain; charset=utf-8"}})},
        responses={201: SubmissionOutput, **error_responses(402, 403, 429)},
        examples=[OpenApiExample("vector-add in C++", request_only=True, value={
            "problem": "vector-add", "language": "cpp", "mode": "check",
            "source": 'extern "C" void solution(const float* a, const float* b, float* c, size_t n) '
                      "{ for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }"})])
    def post(self, request: Request) -> Response:
        uploads = isinstance(request.data, QueryDict) and "source_file" in request.data
        data = (self.UploadSerializer if uploads else self.InputSerializer)(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        submission = new_without_entry(submission_create(
            user=request_user(request), problem=values["problem"], language=values["language"],
            source=values["source"], mode=values["mode"], pool_name=values.get("pool") or None))
        # The objects submission_create used are already loaded, and it has no leaderboard entry yet:
        # no second fetch on the hot path.
        return Response(represent(SubmissionOutput, submission, context={"costs": {}}), status=status.HTTP_201_CREATED)


class SubmissionDetailApi(APIView):
    # JSON or a form, not multipart: a multipart body that is no object at all read as "change
    # nothing" and answered 200, where the schema says the body is an object (Schemathesis).
    parser_classes = [LimitedJSONParser, FormParser]

    class UpdateSerializer(serializers.Serializer):
        withdrawn = StrictBooleanField(required=False, help_text="true: off the leaderboard; false: back on it "
                                                                 "(leaderboard submissions only).")
        public_source = StrictBooleanField(required=False, help_text="true: anyone may read the source.")

        class Meta:
            ref_name = "SubmissionUpdate"

    @extend_schema(responses={200: SubmissionDetailOutput, **error_responses(400)},
                   description="`submission_id`: its whole id, or the start of it (4 to 32 hex digits, e.g. the 8 "
                               "the pages show) among your own submissions; a start that several share is refused "
                               "(400) with their ids.")
    def get(self, request: Request, submission_id: str) -> Response:
        return Response(SubmissionDetailOutput(_found(request, submission_id)).data)

    @extend_schema(request=UpdateSerializer, responses={200: SubmissionDetailOutput, **error_responses(409)},
                   description="The owner withdraws the submission from the leaderboard (or returns it) and says "
                               "whether its source is public. Anyone else, staff included, gets 404.")
    def patch(self, request: Request, submission_id: str) -> Response:
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        submission = _found(request, submission_id)
        submission_update(user=request_user(request), submission_id=submission.pk, **data.validated_data)
        return self.get(request, str(submission.pk))


def _found(request: Request, submission_id: Any) -> Submission:
    """The submission a whole or short id names among the caller's (404 none, 400 several)."""
    try:
        submission = submission_find(user=request_user(request), text=str(submission_id), related=(ENTRY,))
    except AmbiguousId as exc:
        raise ApplicationError(str(exc), {"field": "submission_id"}) from None
    if submission is None:
        raise NotFoundError("No such submission.")
    return submission


class SubmissionAmdgcnApi(APIView):
    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR, **error_responses(404)},
                   description="The AMDGCN listing (gfx942) of the submission's compiled kernels, as text: a triton "
                               "submission's compile reports it. 404 for another user's submission or one without it.")
    def get(self, request: Request, submission_id: str) -> HttpResponse:
        submission = submission_get(user=request_user(request), submission_id=submission_id)
        listing = amdgcn_listing(submission=submission) if submission is not None else None
        if listing is None:
            raise NotFoundError("No AMDGCN listing for this submission.")
        response = HttpResponse(listing, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{submission_id}.gfx942.s"'
        return response


class SubmissionCancelApi(APIView):
    @extend_schema(request=None, responses={202: SubmissionOutput, **error_responses(409)})
    def post(self, request: Request, submission_id: str) -> Response:
        if submission_get(user=request_user(request), submission_id=submission_id) is None:
            raise NotFoundError("No such submission.")
        cancelled = submission_cancel(user=request_user(request), submission_id=submission_id)
        return Response(SubmissionOutput(submission_get(user=request_user(request), submission_id=cancelled.pk)).data,
                        status=status.HTTP_202_ACCEPTED)


class MeApi(APIView):
    """The caller: who they are, how much of the submission quota they used, and their limits on
    paid pools (caps, suspension)."""

    @extend_schema(responses=inline_serializer("MeOutput", {
        "username": serializers.CharField(), "is_staff": serializers.BooleanField(),
        "quota": serializers.DictField(), "limits": LimitsOutput()}))
    def get(self, request: Request) -> Response:
        user = request_user(request)
        return Response({"username": user.get_username(), "is_staff": user.is_staff,
                         "quota": user_quota(user_id=user.pk), "limits": LimitsOutput(user_limits(user=user)).data})

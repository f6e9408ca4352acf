"""The problems' API: the catalogue with its filters, each problem's parameters and the best results per pool."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.auth import request_user
from core.exceptions import NotFoundError
from core.renderers import EncodedJSON, encode
from core.represent import represent
from core.ttl_cache import TtlCache
from leaderboard.apis import SpeedOfLightOutput
from leaderboard.bests import BENCHMARK, RANKED, user_bests
from leaderboard.review import SCORING
from leaderboard.selectors import solved_counts
from leaderboard.speed_of_light import best_light
from submissions.browse import (
    DIFFICULTIES,
    FILTER_VALUE_HELP,
    FILTER_VALUE_RE,
    ProblemFilters,
    problems_filtered,
)
from submissions.selectors import (
    problem_get,
    problem_interface,
)
from web.api.submissions import not_one_of


class BestOutput(serializers.Serializer):
    pool = serializers.CharField()
    score_ms = serializers.FloatField(help_text="The number the leaderboard shows when kind is ranked.")
    kind = serializers.ChoiceField(choices=[RANKED, BENCHMARK], help_text="ranked: your result on the pool's "
                                   "leaderboard; benchmark: your fastest public benchmark there (never ranks).")
    submission = serializers.UUIDField(source="submission_id")


class PoolLightOutput(SpeedOfLightOutput):
    pool = serializers.CharField()
    score_ms = serializers.FloatField(help_text="The pool's best shown ranked score.")


class ProblemOutput(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    difficulty = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    data_types = serializers.ListField(child=serializers.CharField(), help_text=(
        "The element types of its buffers (float, half, bfloat16, fp8_e4m3fnuz, int8, int32, ...): "
        "what ?type= filters by."))
    solved_by = serializers.SerializerMethodField(help_text="How many users solved it: a submission that passed "
                                                            "its tests (ACCEPTED or CHECKED) on any pool, unless "
                                                            "staff invalidated it.")
    version = serializers.CharField(source="current_version.content_hash")
    your_best = serializers.SerializerMethodField(help_text="Your best per pool: the ranked score where you have "
                                                            "one on the leaderboard, else your fastest benchmark.")
    best_speed_of_light = serializers.SerializerMethodField(
        help_text="Per pool, the leaderboard's best ranked score against the floor of the pool's device.")

    @extend_schema_field(BestOutput(many=True))
    def get_your_best(self, problem: Any) -> list[Any]:
        bests = self.context.get("bests")
        if bests is None:
            user = self.context.get("user")
            bests = user_bests(user_id=user.pk, problem_ids=[problem.pk]) if user is not None else {}
        return [represent(BestOutput, best) for best in bests.get(problem.pk, [])]

    def get_solved_by(self, problem: Any) -> int:
        solved = self.context.get("solved")
        if solved is None:
            solved = solved_counts(problem_ids=[problem.pk])
        return int(solved.get(problem.pk, 0))

    @extend_schema_field(PoolLightOutput(many=True))
    def get_best_speed_of_light(self, problem: Any) -> list[Any]:
        lights = self.context.get("lights")
        if lights is None:
            lights = best_light(problem_ids=[problem.pk])
        return [represent(PoolLightOutput, light) for light in lights.get(problem.pk, [])]


class ParameterOutput(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.CharField(help_text="As problem.yaml names it: float, half, bfloat16, fp8_e4m3fnuz, int8, ...")
    c_types = serializers.DictField(child=serializers.CharField(),
                                    help_text="The C type each language declares (e.g. hip: __hip_bfloat16).")
    pointer = serializers.BooleanField()
    const = serializers.BooleanField()
    output = serializers.BooleanField()
    shape = serializers.ListField(child=serializers.CharField())


@extend_schema_field(OpenApiTypes.NUMBER)
class NumberField(serializers.Field):
    """A JSON number as it is: an integer stays one (a FloatField wrote 8192 as 8192.0)."""

    def to_representation(self, value: Any) -> Any:
        return value


class CaseOutput(serializers.Serializer):
    name = serializers.CharField()
    devices = serializers.ListField(child=serializers.CharField(), help_text="host (CPU pools) and/or gpu.")
    params = serializers.DictField(child=NumberField(), help_text=(
        "The sizes and scalar arguments the case gives the signature's parameters, e.g. {\"S\": 8192, \"H\": 32}."))


class CasesOutput(serializers.Serializer):
    tests = CaseOutput(many=True, help_text="Checked against the reference.")
    benchmarks = CaseOutput(many=True, help_text="Timed on public inputs.")
    ranked = CaseOutput(many=True, help_text="Timed on secret inputs in mode leaderboard: only these rank.")


class ProblemDetailOutput(ProblemOutput):
    statement = serializers.CharField(source="current_version.statement")
    scoring = serializers.SerializerMethodField(help_text="How a leaderboard score is computed.")
    signature = serializers.CharField(source="current_version.signature", help_text="The C++ (cpp) declaration.")
    signatures = serializers.SerializerMethodField(help_text="The declaration of `solution` in each language.")
    parameters = serializers.SerializerMethodField(help_text="Each parameter and its type in each language.")
    templates = serializers.DictField(source="current_version.templates", child=serializers.CharField())
    cases = serializers.SerializerMethodField(help_text="Its test, benchmark and ranked cases with their sizes.")

    def get_scoring(self, problem: Any) -> str:
        return SCORING

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_signatures(self, problem: Any) -> dict[str, str]:
        return self._interface(problem)["signatures"]

    @extend_schema_field(ParameterOutput(many=True))
    def get_parameters(self, problem: Any) -> list[dict[str, Any]]:
        return self._interface(problem)["parameters"]

    @extend_schema_field(CasesOutput())
    def get_cases(self, problem: Any) -> dict[str, Any]:
        return self._interface(problem)["cases"]

    def _interface(self, problem: Any) -> dict[str, Any]:
        cache = self.context.setdefault("interface", {})
        if problem.pk not in cache:
            cache[problem.pk] = problem_interface(version=problem.current_version)
        return cache[problem.pk]


class ProblemListApi(APIView):
    class FilterSerializer(serializers.Serializer):
        # They combine (tag AND type AND difficulty); an empty value means "any"; a well-formed tag or
        # type no problem has lists nothing.
        tag = serializers.RegexField(FILTER_VALUE_RE, required=False, allow_blank=True, max_length=40,
                                     help_text="A tag, e.g. gemm, matrix-cores, memory-bound.",
                                     error_messages={"invalid": f"is not a tag ({FILTER_VALUE_HELP})"})
        type = serializers.RegexField(FILTER_VALUE_RE, required=False, allow_blank=True, max_length=40,
                                      help_text="A data type of its buffers, e.g. bfloat16, fp8_e4m3fnuz, int8.",
                                      error_messages={"invalid": f"is not a data type ({FILTER_VALUE_HELP})"})
        difficulty = serializers.ChoiceField(choices=DIFFICULTIES, required=False, allow_blank=True,
                                             help_text="Its difficulty.",
                                             error_messages={"invalid_choice": not_one_of(list(DIFFICULTIES))})

        class Meta:
            ref_name = "ProblemFilter"

        def to_internal_value(self, data: Any) -> Any:
            lowered = {k: data[k].strip().lower() for k in ("tag", "type", "difficulty")
                       if isinstance(data.get(k), str)}
            return super().to_internal_value(lowered)

    @extend_schema(parameters=[FilterSerializer], responses=ProblemOutput(many=True))
    def get(self, request: Request) -> Response:
        # The rows everyone sees (cached: problem_rows_shared) with the caller's own bests: one query
        # per request besides authentication, whatever the number of problems.
        filters = ProblemFilters()
        if any(name in request.query_params for name in ("tag", "type", "difficulty")):
            # Only then the serializer (building one per request costs more than the rest of the view).
            params = self.FilterSerializer(data=request.query_params)
            params.is_valid(raise_exception=True)
            filters = ProblemFilters(**params.validated_data)
        rows = _shared_rows.get(filters, lambda: problem_rows_shared(filters=filters))
        bests = user_bests(user_id=request_user(request).pk)
        return Response(EncodedJSON.array([
            encode({**row, "your_best": [represent(BestOutput, b) for b in bests[pk]]}) if pk in bests else encoded
            for pk, row, encoded in rows]))


# The list's rows without the caller's bests, per filter, for HIPJUDGE_PROBLEM_LIST_CACHE_TTL seconds: they
# are the same for everyone (the problems with their versions, everyone's solved counts and the
# leaderboards' speed of light), the costly part of the list, so one process builds them once per TTL
# (what that saves: docs/benchmarks.md).
_shared_rows = TtlCache("HIPJUDGE_PROBLEM_LIST_CACHE_TTL")


def problem_rows_shared(*, filters: ProblemFilters) -> tuple[tuple[Any, dict[str, Any], bytes], ...]:
    """(problem id, its row with an empty your_best, the row encoded) for every listed problem: four
    queries. Encoded here, the rows of callers without a best there are not encoded per request."""
    problems = list(problems_filtered(filters=filters).select_related("current_version"))
    ids = [p.pk for p in problems]
    context = {"bests": {}, "solved": solved_counts(problem_ids=ids) if problems else {},
               "lights": best_light(problem_ids=ids) if problems else {}}
    rows = ProblemOutput(problems, many=True, context=context).data
    return tuple((pk, row, encode(row)) for pk, row in zip(ids, rows, strict=True))


class ProblemDetailApi(APIView):
    @extend_schema(responses=ProblemDetailOutput)
    def get(self, request: Request, slug: str) -> Response:
        problem = problem_get(slug=slug)
        if problem is None:
            raise NotFoundError(f"No problem {slug!r}.")
        return Response(ProblemDetailOutput(problem, context={"user": request_user(request)}).data)

"""The leaderboard through the API: `GET /api/v1/problems/<slug>/leaderboard`, and the parts of a
submission's detail about its ranked pass: its standing and rank, its ranked result with the
cases, and its judging history. Nothing here ever reads the ranked seed."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.exceptions import NotFoundError
from fleets.models import Pool
from leaderboard.entries import entry_of
from leaderboard.models import RankedCaseResult
from leaderboard.review import SCORING
from leaderboard.selectors import leaderboard_rows, submission_ranked, submission_standing
from leaderboard.speed_of_light import leaderboard_light, submission_light
from submissions.models import Judging, Submission
from submissions.selectors import problem_get, submission_history

MAX_ROWS = 100


def _interval(low: float | None, high: float | None) -> list[float] | None:
    return None if low is None or high is None else [low, high]


class IntervalField(serializers.ListField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.FloatField(), min_length=2, max_length=2, allow_null=True,
                         help_text="The 95 % confidence interval [low, high] in ms.", **kwargs)


class SpeedOfLightOutput(serializers.Serializer):
    """A time against the roofline floor of the pool's device (docs/speed-of-light.md)."""

    floor_ms = serializers.FloatField(help_text="The least time the work can take on the pool's device: its bytes "
                                                "at peak bandwidth or its FLOPs at the peak of peak_type.")
    percent = serializers.FloatField(help_text="floor_ms / the time x 100: 100 would be the device's peak.")
    peak_type = serializers.CharField(help_text="The problem's flops_type: fp32, fp16, bf16, fp8, int8 or fp64.")
    bound = serializers.ChoiceField(choices=["compute", "memory", "mixed"], help_text=(
        "Which peak sets the floor; mixed: a score whose cases differ."))


class RankedCaseOutput(serializers.Serializer):
    case = serializers.CharField()
    runs = serializers.IntegerField()
    mean_ms = serializers.FloatField()
    median_ms = serializers.FloatField()
    ci95_ms = serializers.SerializerMethodField()
    reference_mean_ms = serializers.FloatField(allow_null=True)
    speedup = serializers.FloatField(allow_null=True)
    gflops = serializers.FloatField(allow_null=True)
    gbps = serializers.FloatField(allow_null=True)
    speed_of_light = serializers.SerializerMethodField(help_text="Its mean against the floor of the pool's device.")

    @extend_schema_field(IntervalField())
    def get_ci95_ms(self, case: RankedCaseResult) -> list[float]:
        return [case.ci95_lo_ms, case.ci95_hi_ms]

    @extend_schema_field(SpeedOfLightOutput(allow_null=True))
    def get_speed_of_light(self, case: RankedCaseResult) -> dict[str, Any] | None:
        light = self.context.get("light")
        return light.case(case, "ranked") if light is not None else None


class RankedOutput(serializers.Serializer):
    score_ms = serializers.FloatField(help_text="Geometric mean of the ranked cases' mean times.")
    ci95_ms = IntervalField()
    speedup = serializers.FloatField(allow_null=True, help_text="Against the problem's own solution.")
    speedup_ci95 = serializers.SerializerMethodField(help_text="The speedup's 95 % interval [low, high].")
    speedup_note = serializers.SerializerMethodField(
        help_text="faster | slower | within noise (its interval holds 1, or it is closer to 1 than the pool's noise).")
    ranked_at = serializers.DateTimeField(allow_null=True)
    speed_of_light = serializers.SerializerMethodField(
        help_text="The score against the geometric mean of its cases' floors.")
    cases = RankedCaseOutput(many=True)

    @extend_schema_field(SpeedOfLightOutput(allow_null=True))
    def get_speed_of_light(self, ranked: dict[str, Any]) -> dict[str, Any] | None:
        light = self.context.get("light")
        return light.score(ranked["score_ms"], "ranked") if light is not None else None

    @extend_schema_field(serializers.ListField(child=serializers.FloatField(), allow_null=True))
    def get_speedup_ci95(self, ranked: dict[str, Any]) -> list[float] | None:
        view = ranked.get("speedup_view")
        return list(view.ci95) if view is not None and view.ci95 else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_speedup_note(self, ranked: dict[str, Any]) -> str | None:
        view = ranked.get("speedup_view")
        return view.word if view is not None else None


class StandingOutput(serializers.Serializer):
    state = serializers.ChoiceField(choices=["not_entered", "pending", "confirming", "not_ranked", "invalidated",
                                             "under_review", "withdrawn", "ranked", "outranked"])
    reason = serializers.CharField(help_text="Why, in a sentence (the judge's or staff's words).")
    rank = serializers.IntegerField(allow_null=True)


class JudgingOutput(serializers.Serializer):
    number = serializers.IntegerField(help_text="1: the submission itself; then one per rejudge.")
    kind = serializers.CharField(help_text="user | rejudge")
    reason = serializers.CharField(help_text="Why staff rejudged it.")
    problem_version = serializers.CharField(source="problem_version.content_hash")
    status = serializers.CharField()
    status_reason = serializers.CharField()
    score_ms = serializers.FloatField(allow_null=True)
    speedup = serializers.FloatField(allow_null=True)
    ranked_passed = serializers.BooleanField(allow_null=True)
    ranked_score_ms = serializers.FloatField(allow_null=True)
    ranked_ci95_ms = serializers.SerializerMethodField()
    ranked_speedup = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(IntervalField())
    def get_ranked_ci95_ms(self, judging: Judging) -> list[float] | None:
        return _interval(judging.ranked_ci95_lo_ms, judging.ranked_ci95_hi_ms)


class RankedDetailFields(serializers.Serializer):
    """What a submission's detail adds for the leaderboard."""

    public_source = serializers.SerializerMethodField(help_text="Its owner lets anyone read the source.")
    withdrawn = serializers.SerializerMethodField(help_text="Its owner took it off the leaderboard.")
    rank = serializers.SerializerMethodField(help_text="Its place on the leaderboard of its problem and pool; "
                                                       "null when it is not shown there (`leaderboard` says why).")
    leaderboard = serializers.SerializerMethodField()
    ranked = serializers.SerializerMethodField()
    history = serializers.SerializerMethodField(help_text="Every judging, the first and each rejudge, oldest first.")

    def _standing(self, obj: Submission) -> Any:
        cache = self.context.setdefault("standings", {})
        if obj.pk not in cache:
            cache[obj.pk] = submission_standing(submission=obj)
        return cache[obj.pk]

    def get_public_source(self, obj: Submission) -> bool:
        return entry_of(obj).public_source

    def get_withdrawn(self, obj: Submission) -> bool:
        return entry_of(obj).withdrawn_at is not None

    def get_rank(self, obj: Submission) -> int | None:
        return self._standing(obj).rank

    @extend_schema_field(StandingOutput())
    def get_leaderboard(self, obj: Submission) -> dict[str, Any]:
        return StandingOutput(self._standing(obj)).data

    @extend_schema_field(RankedOutput(allow_null=True))
    def get_ranked(self, obj: Submission) -> dict[str, Any] | None:
        ranked = submission_ranked(submission=obj)
        if ranked is None:
            return None
        return RankedOutput(ranked, context={"light": submission_light(submission=obj)}).data

    @extend_schema_field(JudgingOutput(many=True))
    def get_history(self, obj: Submission) -> list[Any]:
        return list(JudgingOutput(submission_history(submission=obj), many=True).data)


class LeaderboardRowOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    user = serializers.CharField(source="user.username")
    score_ms = serializers.FloatField(source="entry.ranked_score_ms")
    ci95_ms = serializers.SerializerMethodField()
    speedup = serializers.FloatField(source="entry.ranked_speedup", allow_null=True)
    speedup_ci95 = serializers.SerializerMethodField(help_text="The speedup's 95 % interval [low, high].")
    speedup_note = serializers.SerializerMethodField(help_text="faster | slower | within noise")
    language = serializers.CharField()
    submitted_at = serializers.DateTimeField(source="created_at")
    ranked_at = serializers.DateTimeField(source="entry.ranked_at", allow_null=True)
    submission = serializers.SerializerMethodField(help_text="Its id, only where its owner made the source public.")
    speed_of_light = serializers.SerializerMethodField(help_text="Its score against the floor of the pool's device.")

    @extend_schema_field(IntervalField())
    def get_ci95_ms(self, row: Submission) -> list[float] | None:
        return _interval(row.entry.ranked_ci95_lo_ms, row.entry.ranked_ci95_hi_ms)  # type: ignore[attr-defined]

    @extend_schema_field(serializers.ListField(child=serializers.FloatField(), allow_null=True))
    def get_speedup_ci95(self, row: Submission) -> list[float] | None:
        view = getattr(row, "speedup_view", None)
        return list(view.ci95) if view is not None and view.ci95 else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_speedup_note(self, row: Submission) -> str | None:
        view = getattr(row, "speedup_view", None)
        return view.word if view is not None else None

    @extend_schema_field(serializers.UUIDField(allow_null=True))
    def get_submission(self, row: Submission) -> str | None:
        return str(row.pk) if row.entry.public_source else None  # type: ignore[attr-defined]

    @extend_schema_field(SpeedOfLightOutput(allow_null=True))
    def get_speed_of_light(self, row: Submission) -> dict[str, Any] | None:
        return getattr(row, "speed_of_light", None)


class LeaderboardOutput(serializers.Serializer):
    problem = serializers.CharField()
    pool = serializers.CharField()
    scoring = serializers.CharField(help_text="How the score is computed.")
    rows = LeaderboardRowOutput(many=True)


class LeaderboardApi(APIView):
    """Each user's best ranked result on a problem and pool, fastest first. Public, like the page: no
    credentials are read (a stale token does not turn a public read into a 401)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    class FilterSerializer(serializers.Serializer):
        pool = serializers.CharField(required=False, allow_blank=True, max_length=63,
                                     help_text="A pool's name (GET /pools); empty or absent: the default pool.")
        limit = serializers.IntegerField(required=False, default=50, min_value=1, max_value=MAX_ROWS)

        class Meta:
            ref_name = "LeaderboardFilter"

    @extend_schema(parameters=[FilterSerializer], responses=LeaderboardOutput)
    def get(self, request: Request, slug: str) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        problem = problem_get(slug=slug)
        if problem is None:
            raise NotFoundError(f"No problem {slug!r}.")
        name = filters.validated_data.get("pool") or settings.HIPJUDGE_DEFAULT_POOL
        pool = Pool.objects.filter(name=name).first()
        if pool is None:
            raise NotFoundError(f"No pool {name!r}.")
        rows = leaderboard_rows(problem_id=problem.pk, pool_id=pool.pk, limit=filters.validated_data["limit"])
        leaderboard_light(rows=rows, pool=pool)
        for position, row in enumerate(rows, start=1):
            row.rank = position  # type: ignore[attr-defined]
        return Response(LeaderboardOutput({"problem": problem.slug, "pool": pool.name, "scoring": SCORING,
                                           "rows": rows}).data)

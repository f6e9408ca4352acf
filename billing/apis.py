"""Billing API: staff metrics, and each user's own usage. Money is a string of a Decimal (USD)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from billing.metrics import metrics_get
from billing.selectors import user_usage


def money(**kwargs: object) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=18, decimal_places=6, **kwargs)  # type: ignore[arg-type]


class MetricsApi(APIView):
    permission_classes = [IsAdminUser]

    class OutputSerializer(serializers.Serializer):
        total_cost_usd = money()
        remaining_credits_usd = money()
        credits_used_pct = serializers.DecimalField(max_digits=9, decimal_places=2, allow_null=True)
        credit_usd = money()
        spent_against_credit_usd = money()
        paid_pools_stopped = serializers.BooleanField()
        tasks_completed = serializers.IntegerField()
        cold_starts = serializers.IntegerField()
        warm_reuses = serializers.IntegerField()
        active_vms = serializers.IntegerField()
        idle_cost_usd = money()
        avg_queue_wait_s = serializers.FloatField(allow_null=True)
        avg_cold_start_s = serializers.FloatField(allow_null=True)
        burn_rate_usd_per_day = money()
        projected_exhaustion_date = serializers.DateField(allow_null=True)
        generated_at = serializers.DateTimeField()

    @extend_schema(responses=OutputSerializer, tags=["billing"], summary="Platform cost and usage metrics (staff)")
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(metrics_get()).data)


class UsageApi(APIView):
    permission_classes = [IsAuthenticated]

    class PoolSerializer(serializers.Serializer):
        pool = serializers.CharField()
        cost_usd = money()
        busy_seconds = serializers.DecimalField(max_digits=18, decimal_places=3)

    class OutputSerializer(serializers.Serializer):
        month = serializers.CharField()
        spent_usd = money()
        monthly_cap_usd = money(allow_null=True)
        remaining_usd = money(allow_null=True)
        busy_seconds = serializers.DecimalField(max_digits=18, decimal_places=3)
        by_pool = serializers.ListField(child=serializers.DictField())
        submissions_24h = serializers.IntegerField()
        daily_limit = serializers.IntegerField()
        active = serializers.IntegerField()
        concurrent_limit = serializers.IntegerField()

    @extend_schema(responses=OutputSerializer, tags=["billing"], summary="Your usage this month and your limits")
    def get(self, request: Request) -> Response:
        usage = user_usage(user=request.user)  # type: ignore[arg-type]
        usage["by_pool"] = self.PoolSerializer(usage["by_pool"], many=True).data
        return Response(self.OutputSerializer(usage).data)

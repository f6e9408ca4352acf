"""Billing API: staff metrics, and each user's own usage. Money is a string of a Decimal (USD)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from billing.metrics import metrics_get
from billing.selectors import user_usage
from core.auth import request_user


def money_field(**kwargs: object) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=18, decimal_places=6, **kwargs)  # type: ignore[arg-type]


class CanViewLedger(BasePermission):
    """The platform's costs are for staff allowed to read the ledger, not for every staff account."""

    message = "You need the permission to view the ledger (billing.view_ledgerentry)."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(request.user and request.user.has_perm("billing.view_ledgerentry"))


class MetricsApi(APIView):
    permission_classes = [IsAuthenticated, CanViewLedger]

    class OutputSerializer(serializers.Serializer):
        total_cost_usd = money_field()
        remaining_credits_usd = money_field()
        credits_used_pct = serializers.DecimalField(max_digits=9, decimal_places=2, allow_null=True)
        credit_usd = money_field()
        spent_against_credit_usd = money_field()
        paid_pools_stopped = serializers.BooleanField()
        tasks_completed = serializers.IntegerField()
        cold_starts = serializers.IntegerField()
        warm_reuses = serializers.IntegerField()
        active_vms = serializers.IntegerField()
        idle_cost_usd = money_field()
        platform_fault_cost_usd = money_field(help_text="VM time the platform's own faults held, booked to it "
                                                        "(a runner that died, a retried attempt, a VM left idle).")
        avg_queue_wait_s = serializers.FloatField(allow_null=True)
        avg_cold_start_s = serializers.FloatField(allow_null=True)
        burn_rate_usd_per_day = money_field()
        projected_exhaustion_date = serializers.DateField(allow_null=True)
        generated_at = serializers.DateTimeField()

        class Meta:
            ref_name = "Metrics"

    @extend_schema(responses=OutputSerializer, tags=["billing"], summary="Platform cost and usage metrics (staff)")
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(metrics_get()).data)


class UsageByPoolOutput(serializers.Serializer):
    pool = serializers.CharField()
    cost_usd = money_field()
    busy_seconds = serializers.DecimalField(max_digits=18, decimal_places=3)


class UsageApi(APIView):
    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        month = serializers.CharField()
        spent_usd = money_field()
        monthly_cap_usd = money_field(allow_null=True)
        remaining_usd = money_field(allow_null=True)
        busy_seconds = serializers.DecimalField(max_digits=18, decimal_places=3)
        by_pool = UsageByPoolOutput(many=True)
        submissions_24h = serializers.IntegerField()
        daily_limit = serializers.IntegerField()
        active = serializers.IntegerField()
        concurrent_limit = serializers.IntegerField()

        class Meta:
            ref_name = "Usage"

    @extend_schema(responses=OutputSerializer, tags=["billing"], summary="Your usage this month and your limits")
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(user_usage(user=request_user(request))).data)

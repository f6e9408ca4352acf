"""Pools users can submit to, with which of them are open to the caller (read-only for users;
staff manage pools in the admin; it lives here, not in fleets, because access depends on who asks),
and the caller's own limits as GET /api/v1/me shows them."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from billing.selectors import pool_is_paid
from fleets.models import Pool
from fleets.selectors import pool_list
from limits.selectors import UserLimits, pools_offered
from submissions.offers import emulated_limits, pool_offers


class LanguageOfferOutput(serializers.Serializer):
    language = serializers.CharField()
    modes = serializers.ListField(child=serializers.CharField(), help_text="The modes a submission may use.")
    emulated = serializers.BooleanField(
        help_text="Mode check runs on the emulated device (the CPU), not on a GPU: check only, no timing. "
                  "Mode compile, where offered, uses the real compiler.")


class PoolOutput(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    backend = serializers.CharField()
    device = serializers.CharField()
    gpu = serializers.CharField(source="gpu_name")
    languages = serializers.ListField(source="accepted_languages", child=serializers.CharField())
    compile_only_languages = serializers.ListField(child=serializers.CharField(),
                                                   help_text="Languages this pool can only compile-check.")
    emulated_languages = serializers.ListField(
        child=serializers.CharField(),
        help_text="Languages this pool checks on the emulated device (CPU), in mode check only.")
    offers = serializers.SerializerMethodField(help_text="Every language the pool takes, with its modes.")
    emulated_note = serializers.SerializerMethodField(
        help_text="What a check on the emulated device does and does not do; empty when the pool emulates nothing.")
    max_vms = serializers.IntegerField()
    warm_vms = serializers.IntegerField()
    live_vms = serializers.IntegerField()
    hourly_rate = serializers.DecimalField(max_digits=12, decimal_places=6)
    idle_timeout_s = serializers.IntegerField()
    paid = serializers.SerializerMethodField(help_text="Costs money: caps and access rules apply.")
    simulated = serializers.BooleanField(
        source="is_simulated", help_text="A simulated pool: jobs run on the platform's own machine, cold starts and "
                                         "the price are simulated (the spend still counts).")
    policy = serializers.CharField(source="policy_in_effect", help_text="fixed, always_on or adaptive.")
    default = serializers.SerializerMethodField(method_name="get_is_default",
                                                help_text="The pool a submission goes to when it names none.")
    open_to_you = serializers.SerializerMethodField(help_text="You may submit to this pool.")
    access = serializers.SerializerMethodField(
        help_text="When the pool is not open to you: why, and how to get access; empty otherwise.")

    @extend_schema_field(LanguageOfferOutput(many=True))
    def get_offers(self, pool: Pool) -> list[dict[str, Any]]:
        return [offer.as_dict() for offer in pool_offers(pool=pool)]

    def get_emulated_note(self, pool: Pool) -> str:
        return emulated_limits() if pool.emulated_languages else ""

    def get_paid(self, pool: Pool) -> bool:
        return pool_is_paid(pool)

    def get_is_default(self, pool: Pool) -> bool:
        return pool.name == settings.HIPJUDGE_DEFAULT_POOL

    def get_open_to_you(self, pool: Pool) -> bool:
        return self.context["access"][pool.pk].open

    def get_access(self, pool: Pool) -> str:
        return self.context["access"][pool.pk].note


class PoolListApi(APIView):
    @extend_schema(responses=PoolOutput(many=True))
    def get(self, request: Request) -> Response:
        pools = list(pool_list())
        context: dict[str, Any] = {"access": pools_offered(user=request.user, pools=pools)}
        return Response(PoolOutput(pools, many=True, context=context).data)


class CapOutput(serializers.Serializer):
    cap = serializers.DecimalField(max_digits=18, decimal_places=6, allow_null=True, help_text="null: no cap")
    used = serializers.DecimalField(max_digits=18, decimal_places=6, help_text="Booked since the cap last reset.")
    held = serializers.DecimalField(max_digits=18, decimal_places=6,
                                    help_text="Held by your queued and running submissions until their time is booked.")
    resets_at = serializers.DateTimeField()


class LimitsOutput(serializers.Serializer):
    suspended = serializers.CharField(help_text="Why your account is suspended (a sentence); empty when it is not.")
    monthly_spend_usd = CapOutput(source="caps.monthly_usd", help_text="USD your jobs cost on paid pools this month.")
    daily_gpu_seconds = CapOutput(source="caps.daily_gpu_seconds",
                                  help_text="GPU-seconds of your jobs on paid pools today (UTC).")
    reserve_seconds = serializers.SerializerMethodField(
        help_text="Seconds of a paid pool each queued or running submission holds against both caps.")

    def get_reserve_seconds(self, limits: UserLimits) -> int:
        return settings.HIPJUDGE_CAP_RESERVE_SECONDS

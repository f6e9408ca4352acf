"""Pools users can submit to (read-only for users; staff manage them in the admin)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from fleets.selectors import fleet_list


class PoolOutput(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    backend = serializers.CharField()
    device = serializers.CharField()
    gpu = serializers.CharField(source="gpu_name")
    languages = serializers.ListField(source="accepted_languages", child=serializers.CharField())
    compile_only_languages = serializers.ListField(child=serializers.CharField(),
                                                   help_text="Languages this pool can only compile-check.")
    max_vms = serializers.IntegerField()
    warm_vms = serializers.IntegerField()
    live_vms = serializers.IntegerField()
    hourly_rate = serializers.DecimalField(max_digits=12, decimal_places=6)
    idle_timeout_s = serializers.IntegerField()


class PoolListApi(APIView):
    @extend_schema(responses=PoolOutput(many=True))
    def get(self, request: Request) -> Response:
        return Response(PoolOutput(fleet_list(), many=True).data)

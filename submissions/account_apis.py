"""Tokens for API clients (the CLI logs in here) and the caller's own usage."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.auth import request_user
from config.exceptions import ApplicationError
from submissions.selectors import user_quota


class TokenCreateApi(APIView):
    """Exchange a username and password for the user's API token (created on first use)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=256, trim_whitespace=False)

    @extend_schema(request=InputSerializer,
                   responses=inline_serializer("TokenOutput", {"token": serializers.CharField(),
                                                               "username": serializers.CharField()}))
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            raise ApplicationError("Wrong username or password.", {"field": "password"})
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key, "username": user.get_username()})


class MeApi(APIView):
    @extend_schema(responses=inline_serializer("MeOutput", {
        "username": serializers.CharField(), "is_staff": serializers.BooleanField(),
        "quota": serializers.DictField()}))
    def get(self, request: Request) -> Response:
        user = request_user(request)
        return Response({"username": user.get_username(), "is_staff": user.is_staff,
                         "quota": user_quota(user_id=user.pk)})

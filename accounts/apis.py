"""API tokens for clients: the CLI logs in here."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import authenticate
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.tokens import token_create
from core.exceptions import AuthenticationFailed
from core.fields import StrictCharField, StrictIntegerField
from core.parsers import LimitedJSONParser
from core.schema import error_responses
from core.throttling import SignInThrottle, signin_failed

MAX_EXPIRY_DAYS = 3650


class TokenCreateApi(APIView):
    """Exchange a username and password for a new API token. The key is in this answer only: the
    server keeps a digest of it. Each call makes another token (one per machine); a new password
    revokes them all. Throttled like the login form: per client address, and failed attempts per
    account."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [SignInThrottle]
    # JSON only: a form cannot say `"expires_in_days": null`, which the schema allows.
    parser_classes = [LimitedJSONParser]

    class InputSerializer(serializers.Serializer):
        username = StrictCharField(max_length=150)
        password = StrictCharField(max_length=256, trim_whitespace=False)
        expires_in_days = StrictIntegerField(
            required=False, allow_null=True, min_value=1, max_value=MAX_EXPIRY_DAYS,
            help_text="The token stops working after this many days; absent or null: never.")

        class Meta:
            ref_name = "TokenCreate"

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField(help_text="The key: send `Authorization: Token <key>`. Shown only here.")
        username = serializers.CharField()
        id = serializers.UUIDField(help_text="The token's id (to revoke it on the account page).")
        prefix = serializers.CharField(help_text="The key's first characters, as the account page shows them.")
        expires_at = serializers.DateTimeField(allow_null=True)

        class Meta:
            ref_name = "TokenOutput"

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer, **error_responses(401, 409)})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        user = authenticate(request._request, username=values["username"], password=values["password"])
        if user is None:
            signin_failed(username=values["username"])
            raise AuthenticationFailed("Wrong username or password.", {"field": "password"})
        days = values.get("expires_in_days")
        issued = token_create(user=user,  # type: ignore[arg-type]
                              expires_at=timezone.now() + timedelta(days=days) if days else None)
        return Response(self.OutputSerializer({
            "token": issued.key, "username": user.get_username(), "id": issued.token.pk,
            "prefix": issued.token.prefix, "expires_at": issued.token.expires_at}).data, status=201)

"""Sign up and the account page: API tokens (create, revoke), quota and spend."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from config.auth import request_user
from submissions.selectors import user_quota
from web import billing_bridge
from web.forms import SignupForm


def signup_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("problem-list")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}! Pick a problem to start.")
        return redirect("problem-list")
    return render(request, "web/auth/signup.html", {"form": form})


@login_required
def account_view(request: HttpRequest) -> HttpResponse:
    user = request_user(request)
    token = Token.objects.filter(user=user).first()
    # A new key is shown in full once, right after it is made; afterwards only its start.
    fresh = request.session.pop("web_new_token", None)
    return render(request, "web/account.html", {
        "token": token, "fresh_key": fresh if token and fresh == token.key else None,
        "quota": user_quota(user_id=user.pk), "spend": billing_bridge.user_spend(user=user)})


@login_required
@require_POST
def token_create_view(request: HttpRequest) -> HttpResponse:
    """One token per user (DRF authtoken): creating one replaces (revokes) the previous key."""
    user = request_user(request)
    Token.objects.filter(user=user).delete()
    token = Token.objects.create(user=user)
    request.session["web_new_token"] = token.key
    messages.success(request, "New API token created. Copy it now: it is shown only once.")
    return redirect("account")


@login_required
@require_POST
def token_revoke_view(request: HttpRequest) -> HttpResponse:
    deleted, _ = Token.objects.filter(user=request_user(request)).delete()
    messages.info(request, "API token revoked." if deleted else "You had no API token.")
    return redirect("account")

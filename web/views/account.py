"""Sign in, sign up, password reset (each throttled) and the account page: API tokens (create with
an optional expiry, list, revoke), quota, caps and spend."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.tokens import IssuedToken, token_create, token_list, token_revoke
from core.auth import request_user
from core.exceptions import ApplicationError
from core.ratelimit import client_address
from core.throttling import Throttle, password_reset_refusal, signin_failed, signin_refusal, signup_refusal
from limits.selectors import user_limits
from submissions.selectors import user_quota
from web.forms import SignupForm, TokenCreateForm


def throttled(request: HttpRequest, refusal: Throttle) -> HttpResponse:
    """429 with the sentence and Retry-After. The form is not shown again: validating it would do
    the very work (checking a password, sending a mail) the throttle is there to stop."""
    response = render(request, "error.html", {"status": 429, "message": refusal.message}, status=429)
    response["Retry-After"] = str(refusal.retry_after)
    return response


class SignInView(auth_views.LoginView):
    """Django's login form, throttled like POST /api/v1/auth/token: attempts per client address,
    failed attempts per account."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refusal = signin_refusal(address=client_address(request), username=request.POST.get("username", ""))
        if refusal is not None:
            return throttled(request, refusal)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        signin_failed(username=self.request.POST.get("username", ""))
        return super().form_invalid(form)


def admin_login_view(request: HttpRequest) -> HttpResponse:
    """The admin's own login form, throttled like SignInView (the same counters): a 302 means it
    signed in, a form shown again after a POST means it did not."""
    username = request.POST.get("username", "")
    if request.method == "POST" and (refusal := signin_refusal(address=client_address(request),
                                                               username=username)) is not None:
        return throttled(request, refusal)
    response = admin.site.login(request)
    if request.method == "POST" and response.status_code == 200:
        signin_failed(username=username)
    return response


class PasswordResetView(auth_views.PasswordResetView):
    """Throttled per client address and per e-mail address asked for, so nobody can flood an inbox."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refusal = password_reset_refusal(address=client_address(request), email=request.POST.get("email", ""))
        if refusal is not None:
            return throttled(request, refusal)
        return super().post(request, *args, **kwargs)


def signup_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("problem-list")
    if request.method == "POST" and (refusal := signup_refusal(address=client_address(request))) is not None:
        return throttled(request, refusal)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}! Pick a problem to start.")
        return redirect("problem-list")
    return render(request, "web/auth/signup.html", {"form": form})


def _account_page(request: HttpRequest, *, fresh: IssuedToken | None = None,
                  form: TokenCreateForm | None = None, status: int = 200) -> HttpResponse:
    user = request_user(request)
    return render(request, "web/account.html", {
        "tokens": token_list(user=user), "fresh": fresh, "token_form": form or TokenCreateForm(),
        "quota": user_quota(user_id=user.pk), "limits": user_limits(user=user),
        "reserve_s": settings.HIPJUDGE_CAP_RESERVE_SECONDS}, status=status)


@login_required
def account_view(request: HttpRequest) -> HttpResponse:
    return _account_page(request)


@login_required
@require_POST
def token_create_view(request: HttpRequest) -> HttpResponse:
    """The new key is in this answer only (never stored, not even in the session): no redirect."""
    form = TokenCreateForm(request.POST)
    if not form.is_valid():
        return _account_page(request, form=form, status=400)
    try:
        issued = token_create(user=request_user(request), expires_at=form.expires_at())
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("account")
    messages.success(request, "New API token created. Copy it now: it is shown only once.")
    return _account_page(request, fresh=issued)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest) -> HttpResponse:
    revoked = token_revoke(user=request_user(request), token_id=request.POST.get("token", ""))
    messages.info(request, "API token revoked." if revoked else "No such API token of yours.")
    return redirect("account")

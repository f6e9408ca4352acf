"""The site's pages (the URL names are what templates and tests reverse)."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from submissions import converters  # noqa: F401 - registers the `subid` converter
from web.views import account, problems, submissions

_auth = "web/auth/"

urlpatterns = [
    path("", problems.problem_list_view, name="problem-list"),
    path("problems/<slug:slug>/", problems.problem_detail_view, name="problem-detail"),
    path("problems/<slug:slug>/leaderboard/", problems.leaderboard_view, name="leaderboard"),
    path("submissions/", submissions.submission_list_view, name="submission-list"),
    # Its whole id or the start of it (the pages show 8 digits): a start redirects to the whole.
    path("submissions/<subid:submission_id>/", submissions.submission_detail_view, name="submission-detail"),
    path("submissions/<uuid:submission_id>/live", submissions.submission_live_view, name="submission-live"),
    path("submissions/<uuid:submission_id>/cancel", submissions.submission_cancel_view, name="submission-cancel"),
    path("submissions/<uuid:submission_id>/leaderboard", submissions.submission_leaderboard_view,
         name="submission-leaderboard"),
    path("submissions/<uuid:submission_id>/source", submissions.submission_source_view, name="submission-source"),
    path("account/", account.account_view, name="account"),
    path("account/token/create", account.token_create_view, name="account-token-create"),
    path("account/token/revoke", account.token_revoke_view, name="account-token-revoke"),
    path("signup/", account.signup_view, name="signup"),
    path("login/", account.SignInView.as_view(template_name=_auth + "login.html", redirect_authenticated_user=True),
         name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/change/", auth_views.PasswordChangeView.as_view(
        template_name=_auth + "password_change.html", success_url=reverse_lazy("password_change_done")),
        name="password_change"),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(
        template_name=_auth + "password_change_done.html"), name="password_change_done"),
    path("password/reset/", account.PasswordResetView.as_view(
        template_name=_auth + "password_reset_form.html", email_template_name=_auth + "password_reset_email.txt",
        subject_template_name=_auth + "password_reset_subject.txt"), name="password_reset"),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(
        template_name=_auth + "password_reset_done.html"), name="password_reset_done"),
    path("password/reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        template_name=_auth + "password_reset_confirm.html"), name="password_reset_confirm"),
    path("password/reset/complete/", auth_views.PasswordResetCompleteView.as_view(
        template_name=_auth + "password_reset_complete.html"), name="password_reset_complete"),
]

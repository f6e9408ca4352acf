from django.contrib.auth import views as auth_views
from django.urls import path

from submissions import views

urlpatterns = [
    path("", views.problem_list_view, name="problem-list"),
    path("problems/<slug:slug>/", views.problem_detail_view, name="problem-detail"),
    path("submissions/", views.submission_list_view, name="submission-list"),
    path("submissions/<uuid:submission_id>/", views.submission_detail_view, name="submission-detail"),
    path("submissions/<uuid:submission_id>/cancel", views.submission_cancel_view, name="submission-cancel"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]

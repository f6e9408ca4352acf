from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from core import error_views
from web.views import account

urlpatterns = [
    # Browsers ask for /favicon.ico whatever the page links (the admin's pages link none).
    path("favicon.ico", RedirectView.as_view(url=static("web/favicon.svg"), permanent=True)),
    path("admin/login/", account.admin_login_view),  # the admin's login form, throttled like the site's
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_urls")),
    path("", include("web.urls")),  # the site
]

handler400 = error_views.bad_request
handler403 = error_views.permission_denied
handler404 = error_views.page_not_found
handler500 = error_views.server_error

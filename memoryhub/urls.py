from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from memoryhub.health import healthz, metrics_view

api_v1 = [
    path("", include("banks.api.urls")),
    path("", include("beliefs.api.urls")),
    path("", include("audit.api_urls")),
    path("", include("reviews.api_urls")),
    path("", include("workloads.api.urls")),
    path("", include("portability.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's script as a file, so the strict CSP holds (its page keeps one <style>).
    path(
        "api/docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(SpectacularSwaggerSplitView.as_view(url_name="schema")),
        name="swagger-ui",
    ),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
]

# --- Dashboard: server-rendered pages; each app serves the pages of its own concern ---
bank_pages = [
    path("", include("beliefs.web.urls")),
    path("", include("workloads.web_urls")),
    path("", include("reviews.urls")),
]
urlpatterns += [
    path("", include("banks.web.root_urls")),
    path("accounts/", include("banks.web.account_urls")),
    path("", include("banks.web.urls")),
    path("", include("audit.web_urls")),
    path("", include("beliefs.web.tenant_urls")),
    path("t/<slug:tenant_slug>/banks/<bank_slug:bank_slug>/", include(bank_pages)),
]

handler500 = "memoryhub.unavailable.server_error"
handler400 = "memoryhub.http_errors.bad_request"
handler403 = "memoryhub.http_errors.permission_denied"
handler404 = "memoryhub.http_errors.not_found"

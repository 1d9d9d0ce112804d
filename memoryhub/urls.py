from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from memoryhub.health import healthz, metrics_view

api_v1 = [
    path("", include("banks.api.urls")),
    path("", include("beliefs.api.urls")),
    path("", include("portability.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
]

handler500 = "memoryhub.unavailable.server_error"
handler400 = "memoryhub.http_errors.bad_request"
handler403 = "memoryhub.http_errors.permission_denied"
handler404 = "memoryhub.http_errors.not_found"

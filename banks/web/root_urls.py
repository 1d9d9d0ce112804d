"""``/``: where a signed-in person lands (named ``home``; no namespace, the layout links to it)."""

from django.urls import path

from banks.web.views import home

urlpatterns = [path("", home, name="home")]

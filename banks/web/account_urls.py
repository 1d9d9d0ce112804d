"""Sign-in, sign-out, password change and invitations (Django auth, our templates).

Sign-in is throttled by django-axes (``banks.lockout``); the password page runs the
password validators and ends a first password's forced change (``banks.sessions``).
"""

from django.contrib.auth import views as auth_views
from django.urls import path

from banks.web.accounts import InvitationPage, LoginPage, PasswordChangePage

urlpatterns = [
    path("login/", LoginPage.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", PasswordChangePage.as_view(), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("invitations/<str:token>/", InvitationPage.as_view(), name="invitation"),
]

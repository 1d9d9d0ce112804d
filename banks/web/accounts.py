"""Account pages: the password page (which also takes a first password's forced change) and invitations.

An invitation link (``/accounts/invitations/<token>/``) is the invitee's to answer: signed in,
they accept or decline it; signed out, they sign in first or create their own account there
(a password that passes the validators) and join at once. Pages that carry a credential, or
a form for one, are sent with ``Cache-Control: no-store``.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views import View

from banks.services.accounts import invitation_accept, invitation_close, invitation_find, password_change_complete
from banks.services.banks import user_create
from banks.sessions import MUST_CHANGE_PASSWORD, password_changed
from memoryhub.tenancy import rls_bypass


def no_store(response):
    """Never cached, by the browser or anything in between (a page with a secret, or a form for one)."""
    add_never_cache_headers(response)
    response["Cache-Control"] = "no-store, no-cache, must-revalidate, private, max-age=0"
    response["Pragma"] = "no-cache"
    return response


class PasswordChangePage(auth_views.PasswordChangeView):
    """Django's password change (the validators apply), and the end of a first password's forced change.

    The request role may not write accounts (only when they last signed in): the old password's check (which may
    upgrade its hash), the new password and the end of the forced change are saved through the maintenance
    connection, for the signed-in person.
    """

    def post(self, request, *args, **kwargs):
        with rls_bypass():
            return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["first_password"] = bool(self.request.session.get(MUST_CHANGE_PASSWORD))
        return context

    def form_valid(self, form):
        response = super().form_valid(form)
        password_change_complete(user=form.user)
        password_changed(self.request)
        return response

    def dispatch(self, request, *args, **kwargs):
        return no_store(super().dispatch(request, *args, **kwargs))


class LoginPage(auth_views.LoginView):
    redirect_authenticated_user = True

    def dispatch(self, request, *args, **kwargs):
        return no_store(super().dispatch(request, *args, **kwargs))


class NewAccountForm(UserCreationForm):
    """An invitee's own account: user name, optional e-mail, and a password that passes the validators."""

    email = forms.EmailField(required=False, label="E-mail (optional)")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


class InvitationPage(View):
    """Accept or decline an invitation; signed out, sign in first or create an account to accept it."""

    template = "registration/invitation.html"

    def dispatch(self, request, *args, **kwargs):
        return no_store(super().dispatch(request, *args, **kwargs))

    def get(self, request, token: str, form=None, status: int = 200):
        invitation = invitation_find(token=token)
        if invitation is None:
            return render(request, "registration/invitation_invalid.html", status=404)
        context = {"invitation": invitation, "token": token, "form": form or NewAccountForm(),
                   "login_url": f"{reverse('login')}?next={request.path}"}  # fmt: skip
        return render(request, self.template, context, status=status)

    def post(self, request, token: str):
        invitation = invitation_find(token=token)
        if invitation is None:
            return render(request, "registration/invitation_invalid.html", status=404)
        action = request.POST.get("action")
        if action == "create" and not request.user.is_authenticated:
            form = NewAccountForm(request.POST)
            if not form.is_valid():
                return self.get(request, token, form=form, status=400)
            data = form.cleaned_data
            user = user_create(tenant=invitation.tenant, username=data["username"], email=data.get("email", ""),
                               password=data["password1"], actor=f"user:{data['username']}")  # fmt: skip
            login(request, user, backend="banks.backends.PasswordBackend")
            return self._accept(request, invitation, user)
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={request.path}")
        if action == "decline":
            invitation_close(invitation=invitation, actor=f"user:{request.user.get_username()}")
            messages.info(request, f"You declined the invitation to {invitation.tenant.name}.")
            return redirect("home")
        if action == "accept":
            return self._accept(request, invitation, request.user)
        return self.get(request, token, status=400)

    def _accept(self, request, invitation, user):
        if invitation_accept(invitation=invitation, user=user) is None:
            return render(request, "registration/invitation_invalid.html", status=404)
        messages.success(request, f"You joined {invitation.tenant.name}.")
        return redirect("beliefs_tenant:tenant-home", tenant_slug=invitation.tenant.slug)

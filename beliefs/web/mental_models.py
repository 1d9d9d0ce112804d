"""Mental models: standing questions with stored, cited answers; bank admins create, refresh and delete."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect

from audit.services import actor_of
from banks.permissions import Role
from banks.web.access import BankPageView
from beliefs.selectors.beliefs import mental_model_get, mental_model_list
from beliefs.services.mental_models import mental_model_create, mental_model_delete, mental_model_refresh
from memoryhub.exceptions import MentalModelNameTaken


class MentalModelForm(forms.Form):
    name = forms.RegexField(
        r"^[a-z0-9][a-z0-9_-]{0,62}$", help_text="Lower-case letters, digits, - or _; e.g. benign-alerts."
    )
    question = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
    object = forms.CharField(max_length=200, required=False, help_text="Only beliefs with this object (optional).")
    min_proof_count = forms.IntegerField(min_value=0, required=False)
    max_beliefs = forms.IntegerField(min_value=1, max_value=50, initial=10)

    def belief_filter(self) -> dict:
        data = self.cleaned_data
        chosen = {"object": data["object"], "min_proof_count": data["min_proof_count"]}
        return {key: value for key, value in chosen.items() if value not in (None, "")}


class MentalModelListPage(BankPageView):
    roles = {"POST": Role.BANK_ADMIN}

    def get(self, request, tenant_slug: str, bank_slug: str, form=None):
        return self.render(
            "beliefs/mental_model_list.html",
            {"models": list(mental_model_list(bank=self.bank)), "form": form or MentalModelForm()},
        )

    def post(self, request, tenant_slug: str, bank_slug: str):
        form = MentalModelForm(request.POST)
        if not form.is_valid():
            return self.get(request, tenant_slug, bank_slug, form=form)
        data = form.cleaned_data
        try:
            model = mental_model_create(
                bank=self.bank,
                name=data["name"],
                question=data["question"],
                belief_filter=form.belief_filter(),
                max_beliefs=data["max_beliefs"],
                actor=actor_of(request),
            )
        except MentalModelNameTaken:
            form.add_error("name", "This bank already has a mental model of that name.")
            return self.get(request, tenant_slug, bank_slug, form=form)
        messages.success(request, f"Mental model {model.name} created.")
        return redirect(
            "beliefs_web:mental-model-detail", tenant_slug=tenant_slug, bank_slug=bank_slug, name=model.name
        )


class MentalModelDetailPage(BankPageView):
    roles = {"POST": Role.BANK_ADMIN}

    def get(self, request, tenant_slug: str, bank_slug: str, name: str):
        model = mental_model_get(bank=self.bank, name=name)
        if model is None:
            raise Http404("No such mental model in this bank.")
        return self.render("beliefs/mental_model_detail.html", {"model": model})

    def post(self, request, tenant_slug: str, bank_slug: str, name: str):
        action = request.POST.get("action")
        if mental_model_get(bank=self.bank, name=name) is None:
            raise Http404("No such mental model in this bank.")
        if action == "delete":
            mental_model_delete(bank=self.bank, name=name, actor=actor_of(request))
            messages.success(request, f"Mental model {name} deleted.")
            return redirect("beliefs_web:mental-model-list", tenant_slug=tenant_slug, bank_slug=bank_slug)
        mental_model_refresh(bank=self.bank, name=name)
        messages.success(request, f"Mental model {name} refreshed.")
        return redirect("beliefs_web:mental-model-detail", tenant_slug=tenant_slug, bank_slug=bank_slug, name=name)

"""Forms of the administration pages. They parse and check input; the services do the work."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.validators import MaxValueValidator
from django.utils import timezone

from banks.models import API_KEY_SCOPES, MAX_API_KEY_LIFETIME_DAYS, slug_validator
from banks.permissions import Role
from banks.selectors import tenant_slug_taken

#: What the role selects post, and the role each value grants (``none`` takes access away).
BANK_ROLE_CHOICES = [
    ("viewer", "Viewer — reads"),
    ("reviewer", "Reviewer — also decides review items"),
    ("bank_admin", "Bank admin — also policy, keys, erasure"),
]
BANK_ROLES = {"none": Role.NONE, "viewer": Role.VIEWER, "reviewer": Role.REVIEWER, "bank_admin": Role.BANK_ADMIN}
TENANT_ROLE_CHOICES = [("member", "Member — roles per bank"), ("admin", "Tenant admin — every bank, and the tenant")]

EXPIRY_CHOICES = [("", "Never"), ("7", "In 7 days"), ("30", "In 30 days"), ("90", "In 90 days"),
                  ("365", "In a year"), ("date", "On a date…")]  # fmt: skip


class ApiKeyForm(forms.Form):
    """A new API key: name, scopes, expiry, rate limit, and (on the tenant page) the bank it is limited to.

    Offers only what the issuer may grant (``scopes``: by their role), expiries within the tenant's maximum key
    lifetime and rate limits up to ``max_rate_limit``; the service checks the same bounds again.
    """

    name = forms.CharField(max_length=200, help_text="Who or what uses it, e.g. triage-agent.")
    scopes = forms.MultipleChoiceField(
        choices=[(s, s) for s in API_KEY_SCOPES],
        widget=forms.CheckboxSelectMultiple,
        initial=["read", "write"],
        help_text="read recalls; write also retains; review decides review items and records analyst verdicts "
        "(a person's gate: agents should not have it); admin does all of it and changes policy and keys.",
    )
    expires = forms.ChoiceField(choices=EXPIRY_CHOICES, required=False, label="Expires")
    expires_on = forms.DateField(
        required=False, label="Expiry date", widget=forms.DateInput(attrs={"type": "date"}),
        help_text="With “On a date…”: the key stops working at the start of this day (UTC).",
    )  # fmt: skip
    rate_limit_per_minute = forms.IntegerField(
        min_value=1, required=False, label="Rate limit per minute",
        help_text="Empty: the server's default.",
    )  # fmt: skip

    def __init__(self, *args, banks=None, scopes=API_KEY_SCOPES, max_lifetime_days=None, max_rate_limit=None,
                 **kwargs):  # fmt: skip
        super().__init__(*args, **kwargs)
        self.max_lifetime_days = max_lifetime_days
        self.fields["scopes"].choices = [(s, s) for s in scopes]
        if "admin" not in scopes:
            self.fields["scopes"].help_text = (
                "read recalls; write also retains; review decides review items and records analyst verdicts (a "
                "person's gate: agents should not have it). admin, the tenant admins' powers, is theirs to grant."
            )
        if max_lifetime_days:
            within = [(v, label) for v, label in EXPIRY_CHOICES[1:] if v == "date" or int(v) <= max_lifetime_days]
            self.fields["expires"].choices = [("", f"Longest allowed ({max_lifetime_days} days)"), *within]
            self.fields["expires"].help_text = f"This tenant's keys live at most {max_lifetime_days} days."
        if max_rate_limit:
            self.fields["rate_limit_per_minute"].max_value = max_rate_limit
            self.fields["rate_limit_per_minute"].validators.append(MaxValueValidator(max_rate_limit))
            self.fields["rate_limit_per_minute"].widget.attrs["max"] = max_rate_limit
            self.fields["rate_limit_per_minute"].help_text = f"At most {max_rate_limit}. Empty: the server's default."
        if banks is not None:  # the tenant page: tenant-wide, or limited to one bank
            choices = [("", "Every bank of the tenant")] + [(b.slug, f"Only {b.name} ({b.slug})") for b in banks]
            self.fields["bank"] = forms.ChoiceField(choices=choices, required=False, label="Reaches")
            self.order_fields(["name", "bank"])

    def clean(self):
        data = super().clean()
        expires = data.get("expires")
        if expires == "date":
            day = data.get("expires_on")
            if day is None:
                self.add_error("expires_on", "Pick the day the key stops working.")
            elif day <= timezone.now().date():
                self.add_error("expires_on", "Pick a day after today.")
            elif self.max_lifetime_days and day > (timezone.now() + timedelta(days=self.max_lifetime_days)).date():
                self.add_error("expires_on", f"This tenant's keys live at most {self.max_lifetime_days} days.")
            else:
                data["expires_at"] = datetime.combine(day, time.min, tzinfo=UTC)
        elif expires:
            data["expires_at"] = timezone.now() + timedelta(days=int(expires))
        else:
            data["expires_at"] = None  # no expiry, or the longest the tenant allows
        return data


class KeyLifetimeForm(forms.Form):
    """The tenant's longest API key lifetime (empty: keys may never expire)."""

    max_api_key_lifetime_days = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_API_KEY_LIFETIME_DAYS, label="Longest API key lifetime (days)",
        help_text="Bounds every key issued from now on, in the dashboard, the API and the command line; a key asked "
        "for without an expiry gets this one. Empty: keys may never expire.",
    )  # fmt: skip


class BankRoleForm(forms.Form):
    """Give one tenant member a role on this bank (``none`` takes it away)."""

    user = forms.IntegerField(widget=forms.HiddenInput)
    role = forms.ChoiceField(choices=[*BANK_ROLE_CHOICES, ("none", "No access")])


class AddBankMemberForm(forms.Form):
    user = forms.TypedChoiceField(coerce=int, label="Person", choices=[])
    role = forms.ChoiceField(choices=BANK_ROLE_CHOICES, initial="viewer")

    def __init__(self, *args, candidates=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["user"].choices = [(u.pk, _person(u)) for u in candidates]


def _person(user) -> str:
    return f"{user.get_username()} ({user.email})" if user.email else user.get_username()


class TenantForm(forms.Form):
    name = forms.CharField(max_length=200)


class BankCreateForm(forms.Form):
    slug = forms.CharField(
        max_length=63, validators=[slug_validator], help_text="Part of every URL and API route; cannot change."
    )
    name = forms.CharField(max_length=200, required=False)
    description = forms.CharField(max_length=10000, required=False, widget=forms.Textarea(attrs={"rows": 2}))


class BankDeleteForm(forms.Form):
    """Which bank to forget, confirmed by typing its slug."""

    bank = forms.ChoiceField(choices=[], label="Bank")
    confirm_slug = forms.CharField(max_length=63, label="Type the bank's slug to confirm")

    def __init__(self, *args, banks=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bank"].choices = [(b.slug, f"{b.name} ({b.slug})") for b in banks]

    def clean(self):
        data = super().clean()
        if data.get("bank") and data.get("confirm_slug", "").strip() != data["bank"]:
            self.add_error("confirm_slug", "Type the slug of the bank you chose, exactly.")
        return data


class InviteMemberForm(forms.Form):
    """Whom to invite, and as what. Nothing is looked up: the invitee answers the link with an account of theirs."""

    invited_as = forms.CharField(
        max_length=254, label="Name or e-mail",
        help_text="Whom the invitation is for; shown to them on the invitation page. Send them the link yourself.",
    )  # fmt: skip
    role = forms.ChoiceField(choices=TENANT_ROLE_CHOICES, initial="member")

    def clean_invited_as(self) -> str:
        value = self.cleaned_data["invited_as"].strip()
        if not value:
            raise forms.ValidationError("Say whom the invitation is for.")
        return value


class TenantRoleForm(forms.Form):
    user = forms.IntegerField(widget=forms.HiddenInput)
    role = forms.ChoiceField(choices=TENANT_ROLE_CHOICES)


class BreakGlassForm(forms.Form):
    """An operator's reason to become tenant admin of one tenant; the tenant's audit log shows it."""

    tenant = forms.IntegerField(widget=forms.HiddenInput)
    reason = forms.CharField(
        min_length=10, max_length=500, label="Reason",
        help_text="Why you need to act in this tenant (a ticket, an incident); its admins read it in their audit log.",
    )  # fmt: skip


class TenantCreateForm(forms.Form):
    """A new tenant (staff only) and its first admin: an existing account, or a new one."""

    slug = forms.CharField(max_length=63, validators=[slug_validator], help_text="Part of every URL; cannot change.")
    name = forms.CharField(max_length=200)
    admin = forms.CharField(max_length=150, label="First admin (user name or e-mail)")
    email = forms.EmailField(required=False, label="E-mail for a new account")
    create = forms.BooleanField(required=False, label="Create the account if there is none")

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if tenant_slug_taken(slug=slug):
            raise forms.ValidationError("A tenant with this slug exists.")
        return slug

    def clean(self):
        data = super().clean()
        name = (data.get("admin") or "").strip()
        if name:
            data["existing"], error = find_account(name, create=bool(data.get("create")))
            if error:
                self.add_error("admin", error)
        return data


def find_account(name: str, *, create: bool):
    """``(account or None, error or None)`` for a user name or e-mail; None with no error means "create it"."""
    users = get_user_model().objects
    found = users.filter(username=name).first() or (users.filter(email__iexact=name).first() if "@" in name else None)
    if found is not None:
        return found, None
    if not create:
        return None, "No account has this user name or e-mail; tick “create” to make one."
    try:
        UnicodeUsernameValidator()(name)
    except forms.ValidationError as exc:
        return None, exc.messages[0]
    return None, None
